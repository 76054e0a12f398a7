import type { OrderDetail } from '@portal/contract';

type Party = OrderDetail['order']['from'];

/**
 * One side of an order, as the order details (the customer's and the console's) show it; `printed`: what the label
 * prints of its lines that print otherwise than typed (another script in Latin letters), said under the address.
 */
export function OrderAddress({ title, party, testId, printed = [] }: { title: string; party: Party; testId: string; printed?: string[] }) {
  const lines = [party.company, party.street, party.street2, `${party.city}, ${party.state} ${party.zip}`, party.country, party.phone].filter(Boolean);
  return (
    <div data-testid={testId}>
      <h6 className="text-muted small text-uppercase">{title}</h6>
      <div className="fw-semibold">{party.name}</div>
      {lines.map((line) => (
        <div key={line}>{line}</div>
      ))}
      {printed.length > 0 && (
        <div className="text-muted" data-testid="prints-as">
          Prints as: {printed.join(' / ')}
        </div>
      )}
    </div>
  );
}
