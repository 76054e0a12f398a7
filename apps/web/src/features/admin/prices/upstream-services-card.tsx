import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Form, Spinner, Table } from 'react-bootstrap';
import type { AdminUpstreamServices } from '@portal/contract';
import { LoadError } from '../../../components/load-error.tsx';
import { upstreamServicesQuery, useUpdateUpstreamService } from '../../../api/admin.ts';

type Service = AdminUpstreamServices['services'][number];

const NOT_RATED = 'not rated for this route';

/**
 * The service field: the carrier's services the upstream rated on the type's route (the last price check's), with the
 * saved one kept even when it is not among them (marked so); free text while no check has priced the route.
 */
function ServiceField({ service, carrier, value, onChange }: { service: Service; carrier: string; value: string; onChange: (value: string) => void }) {
  const label = `Service of ${service.uid}`;
  if (!service.offered) return <Form.Control size="sm" aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
  const names = service.offered.filter((o) => o.carrier === carrier).map((o) => o.service);
  const saved = service.upstream?.service;
  const kept = [saved, value].filter((s, i, all): s is string => Boolean(s) && !names.includes(s!) && all.indexOf(s) === i);
  return (
    <Form.Select size="sm" aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">{carrier ? 'Choose a service' : 'None (not offered)'}</option>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
      {kept.map((name) => (
        <option key={name} value={name}>
          {name} ({NOT_RATED})
        </option>
      ))}
    </Form.Select>
  );
}

/** One label type's upstream carrier, service and carrier account, saved on its own; both empty unmaps it. */
function UpstreamRow({ service }: { service: Service }) {
  const [carrier, setCarrier] = useState(service.upstream?.carrier ?? '');
  const [name, setName] = useState(service.upstream?.service ?? '');
  const [account, setAccount] = useState(service.upstream?.carrierAccount ?? '');
  const update = useUpdateUpstreamService();
  return (
    <tr data-testid="upstream-row" data-uid={service.uid}>
      <td>{service.name}</td>
      <td className="font-monospace">{service.uid}</td>
      <td>
        <Form.Control size="sm" aria-label={`Carrier of ${service.uid}`} value={carrier} onChange={(e) => setCarrier(e.currentTarget.value)} />
      </td>
      <td>
        <ServiceField service={service} carrier={carrier} value={name} onChange={setName} />
      </td>
      <td>
        <Form.Control
          size="sm"
          aria-label={`Carrier account of ${service.uid}`}
          placeholder="any"
          value={account}
          onChange={(e) => setAccount(e.currentTarget.value)}
        />
      </td>
      <td>
        {service.upstream ? <Badge bg="success">Mapped</Badge> : <Badge bg="secondary">Not offered</Badge>}
        {service.rated === false && (
          <Badge bg="warning" text="dark" className="ms-1" data-testid="not-rated">
            Not rated for this route
          </Badge>
        )}
      </td>
      <td>
        <Button
          size="sm"
          variant="outline-primary"
          aria-label={`Save the upstream service of ${service.uid}`}
          disabled={update.isPending}
          onClick={() => update.mutate({ typeId: service._id, body: { carrier, service: name, carrierAccount: account } })}
        >
          Save
        </Button>
      </td>
    </tr>
  );
}

/** On the Prices page: what each label type is bought as upstream (EasyPost); every change is audited. */
export function UpstreamServicesCard() {
  const services = useQuery({ ...upstreamServicesQuery(), refetchOnMount: 'always' });
  return (
    <Card className="mt-3">
      <Card.Header>
        <h2 className="h6 mb-0">Upstream services (EasyPost)</h2>
      </Card.Header>
      <Card.Body>
        {services.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={services} what="the upstream services" />
        {services.data && (
          <p className="small text-muted">
            Label provider: <strong>{services.data.labelProvider}</strong>. With EasyPost a type without a carrier and service is not offered. The services
            offered are those the upstream rated for the type&apos;s reference packages (see <Link to="/admin/price-check">Price check</Link>).
          </p>
        )}
        <Table responsive size="sm" className="align-middle small mb-0" data-testid="upstream-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Uid</th>
              <th>Carrier</th>
              <th>Service</th>
              <th>Carrier account</th>
              <th>State</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {services.data?.services.map((service) => (
              <UpstreamRow
                key={`${service._id}:${service.upstream?.carrier}:${service.upstream?.service}:${service.upstream?.carrierAccount}`}
                service={service}
              />
            ))}
          </tbody>
        </Table>
      </Card.Body>
    </Card>
  );
}
