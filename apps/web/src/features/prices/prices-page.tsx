import { Card, Spinner, Table } from 'react-bootstrap';
import { useQuery } from '@tanstack/react-query';
import { labelTypesQuery } from '../../api/catalog.ts';
import { money } from '../../components/format.ts';
import { LoadError } from '../../components/load-error.tsx';

/** The price table the FAQ promises: every available label type with its weight tiers, as the server prices them. */
export function PricesPage() {
  const types = useQuery(labelTypesQuery());
  return (
    <Card>
      <Card.Header as="h5">Prices</Card.Header>
      <Card.Body>
        <p className="text-muted small">A label costs the price of the tier that holds its weight, charged when the label is created.</p>
        <LoadError query={types} what="the prices" />
        {types.isPending && <Spinner animation="border" size="sm" />}
        {types.data?.labelTypes.map((type) => (
          <section key={type._id} className="mb-4" data-testid="price-type">
            <h2 className="h6">{type.name}</h2>
            {type.prices.length === 0 ? (
              <p className="text-muted small">No prices yet.</p>
            ) : (
              <Table size="sm" className="small mb-0" style={{ maxWidth: 420 }}>
                <thead>
                  <tr>
                    <th>Weight</th>
                    <th className="text-end">Price</th>
                  </tr>
                </thead>
                <tbody>
                  {[...type.prices]
                    .sort((a, b) => a.fromWeight - b.fromWeight)
                    .map((tier) => (
                      <tr key={`${tier.fromWeight}-${tier.toWeight}`} data-testid="price-tier">
                        <td>
                          over {tier.fromWeight} up to {tier.toWeight} {type.weightUnit}
                        </td>
                        <td className="text-end">{money(tier.price)}</td>
                      </tr>
                    ))}
                </tbody>
              </Table>
            )}
          </section>
        ))}
      </Card.Body>
    </Card>
  );
}
