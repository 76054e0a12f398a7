import { useRef } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Card, Tab, Tabs } from 'react-bootstrap';
import { NormalOrderForm } from './normal-order-form.tsx';
import { QuickOrderForm } from './quick-order-form.tsx';
import { emptyDraft } from './order-form-parts.tsx';

/**
 * /createorders: Quick Order (default) and Normal Order; a created order returns the user to '/'. The open tab is
 * in the address (?tab=normal), so a refresh, and the return after an expired session, open the same form.
 */
export function CreateOrderPage() {
  // What one tab leaves (type, template, weight, addresses), the other starts from.
  const draft = useRef(emptyDraft());
  const navigate = useNavigate();
  const tab = new URLSearchParams(useLocation().search).get('tab') === 'normal' ? 'normal' : 'quick';
  return (
    <>
      <h1 className="h4 mb-4">Create Order</h1>
      <Card>
        <Card.Body>
          {/* Only the open tab is mounted, so each form's fields are on the page once. */}
          <Tabs
            activeKey={tab}
            onSelect={(key) => void navigate({ search: key === 'normal' ? '?tab=normal' : '' }, { replace: true })}
            id="create-order-tabs"
            className="mb-4"
            transition={false}
            mountOnEnter
            unmountOnExit
          >
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
