import { Card, Tab, Tabs } from 'react-bootstrap';
import { NormalOrderForm } from './normal-order-form.tsx';
import { QuickOrderForm } from './quick-order-form.tsx';

/** /createorders: Quick Order (default) and Normal Order; a created order returns the user to '/'. */
export function CreateOrderPage() {
  return (
    <>
      <h1 className="h4 mb-4">Create Order</h1>
      <Card>
        <Card.Body>
          {/* Only the open tab is mounted, so each form's fields are on the page once. */}
          <Tabs defaultActiveKey="quick" id="create-order-tabs" className="mb-4" transition={false} mountOnEnter unmountOnExit>
            <Tab eventKey="quick" title="Quick Order">
              <QuickOrderForm />
            </Tab>
            <Tab eventKey="normal" title="Normal Order">
              <NormalOrderForm />
            </Tab>
          </Tabs>
        </Card.Body>
      </Card>
    </>
  );
}
