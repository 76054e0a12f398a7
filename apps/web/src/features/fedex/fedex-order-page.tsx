import { useState } from 'react';
import { Tab, Tabs } from 'react-bootstrap';
import { FedexOrderForm } from './fedex-order-form.tsx';
import { FedexOrdersCard } from './fedex-orders-card.tsx';

type FedexTab = 'orders' | 'create';

/** /fedex-order: Orders (default) and Create Order; a created order brings the user back to Orders. */
export function FedexOrderPage() {
  const [tab, setTab] = useState<FedexTab>('orders');
  return (
    <>
      <h1 className="h4 mb-4">FedEx - Handmade</h1>
      {/* Only the open tab is mounted: Create Order starts empty each time, and Orders reloads. */}
      <Tabs
        activeKey={tab}
        onSelect={(key) => setTab(key === 'create' ? 'create' : 'orders')}
        id="fedex-tabs"
        className="mb-4"
        transition={false}
        mountOnEnter
        unmountOnExit
      >
        <Tab eventKey="orders" title="Orders">
          <FedexOrdersCard />
        </Tab>
        <Tab eventKey="create" title="Create Order">
          <FedexOrderForm onCreated={() => setTab('orders')} />
        </Tab>
      </Tabs>
    </>
  );
}
