import type { OrderDetail } from '@portal/contract';

type Party = OrderDetail['order']['from'];

/** One side of an order, as the order details (the customer's and the console's) show it. */
export function OrderAddress({ title, party, testId }: { title: string; party: Party; testId: string }) {
  const lines = [party.company, party.street, party.street2, `${party.city}, ${party.state} ${party.zip}`, party.country, party.phone].filter(Boolean);
  return (
    <div data-testid={testId}>
      <h6 className="text-muted small text-uppercase">{title}</h6>
      <div className="fw-semibold">{party.name}</div>
      {lines.map((line) => (
        <div key={line}>{line}</div>
      ))}
    </div>
  );
}
