import { useRef } from 'react';
import { Card, Tab, Tabs } from 'react-bootstrap';
import { NormalOrderForm } from './normal-order-form.tsx';
import { QuickOrderForm } from './quick-order-form.tsx';
import { emptyDraft } from './order-form-parts.tsx';

/** /createorders: Quick Order (default) and Normal Order; a created order returns the user to '/'. */
export function CreateOrderPage() {
  // What one tab leaves (type, template, weight, addresses), the other starts from.
  const draft = useRef(emptyDraft());
  return (
    <>
      <h1 className="h4 mb-4">Create Order</h1>
      <Card>
        <Card.Body>
          {/* Only the open tab is mounted, so each form's fields are on the page once. */}
          <Tabs defaultActiveKey="quick" id="create-order-tabs" className="mb-4" transition={false} mountOnEnter unmountOnExit>
            <Tab eventKey="quick" title="Quick Order">
              <QuickOrderForm draft={draft} />
            </Tab>
            <Tab eventKey="normal" title="Normal Order">
              <NormalOrderForm draft={draft} />
            </Tab>
          </Tabs>
        </Card.Body>
      </Card>
    </>
  );
}
