import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Col, Form, ListGroup, Row, Spinner } from 'react-bootstrap';
import { SELLING_UPSTREAMS, UPSTREAM_TITLES, updateUpstreamServiceBody, type AdminUpstreamServices, type UpdateUpstreamServiceBody } from '@portal/contract';
import { LoadError } from '../../../components/load-error.tsx';
import { upstreamServicesQuery, useUpdateUpstreamService, type SellingUpstream } from '../../../api/admin.ts';

type Service = AdminUpstreamServices['services'][number];
type Mapping = Service['mappings'][number];
type Field = keyof UpdateUpstreamServiceBody;
export type MappingErrors = Partial<Record<Field, string>>;

const NOT_RATED = 'not rated for this route';
const titleOf = (upstream: string) => UPSTREAM_TITLES[upstream] ?? upstream;
const isSelling = (upstream: string): upstream is SellingUpstream => (SELLING_UPSTREAMS as readonly string[]).includes(upstream);

/**
 * What is wrong with a mapping before it is sent, each under its field: the contract's limits, and the server's rule that
 * a carrier goes with a service (both empty stops buying the type at the upstream).
 */
export function mappingErrors(body: UpdateUpstreamServiceBody, upstream: string): MappingErrors {
  const parsed = updateUpstreamServiceBody.safeParse(body);
  const errors: MappingErrors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[issue.path[0] as Field] ??= issue.message;
    return errors;
  }
  const { carrier, service } = parsed.data;
  const both = `Set both the carrier and the service, or neither to stop buying the type at ${titleOf(upstream)}`;
  if (carrier && !service) errors.service = both;
  if (service && !carrier) errors.carrier = both;
  return errors;
}

/**
 * The service field: the carrier's services the upstream rated on the type's route (the last price check's), with the
 * saved one kept even when it is not among them (marked so); free text while no check has priced the route there.
 */
function ServiceField(props: {
  id: string;
  label: string;
  mapping: Mapping;
  carrier: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const { id, label, mapping, carrier, value, error, onChange } = props;
  const feedback = <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>;
  if (!mapping.offered)
    return (
      <>
        <Form.Control size="sm" id={id} aria-label={label} value={value} isInvalid={!!error} onChange={(e) => onChange(e.currentTarget.value)} />
        {feedback}
      </>
    );
  const names = mapping.offered.filter((o) => o.carrier === carrier).map((o) => o.service);
  const saved = mapping.mapping?.service;
  const kept = [saved, value].filter((s, i, all): s is string => Boolean(s) && !names.includes(s!) && all.indexOf(s) === i);
  return (
    <>
      <Form.Select size="sm" id={id} aria-label={label} value={value} isInvalid={!!error} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{carrier ? 'Choose a service' : 'None (not bought here)'}</option>
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
      {feedback}
    </>
  );
}

/**
 * One label type's carrier, service and carrier account at one upstream, saved on its own; Clear (or both fields
 * emptied and saved) stops buying the type there. An upstream the shop does not use is muted: its mapping is kept
 * ready for the day it is added to LABEL_UPSTREAMS.
 */
function MappingEditor({ service, mapping }: { service: Service; mapping: Mapping }) {
  const [carrier, setCarrier] = useState(mapping.mapping?.carrier ?? '');
  const [name, setName] = useState(mapping.mapping?.service ?? '');
  const [account, setAccount] = useState(mapping.mapping?.carrierAccount ?? '');
  const [errors, setErrors] = useState<MappingErrors>({});
  const update = useUpdateUpstreamService();
  const upstream = mapping.upstream;
  const title = titleOf(upstream);
  const of = (what: string) => `${what} of ${service.uid} at ${title}`;
  const fieldId = (what: string) => `upstream-${service.uid}-${upstream}-${what}`;
  const send = (body: UpdateUpstreamServiceBody) => {
    const found = mappingErrors(body, upstream);
    setErrors(found);
    if (Object.keys(found).length === 0 && isSelling(upstream)) update.mutate({ typeId: service._id, upstream, body });
  };
  return (
    <div
      className={`border rounded p-2 h-100 ${mapping.configured ? '' : 'bg-light text-muted'}`}
      data-testid="upstream-mapping"
      data-uid={service.uid}
      data-upstream={upstream}
      data-configured={mapping.configured}
    >
      <div className="d-flex flex-wrap align-items-center gap-1 mb-1">
        <h4 className="h6 mb-0 me-auto">{title}</h4>
        {mapping.mapping ? (
          <Badge bg="success">Mapped</Badge>
        ) : (
          <Badge bg="secondary" data-testid="not-mapped">
            Not bought here
          </Badge>
        )}
        {mapping.rated === false && (
          <Badge bg="warning" text="dark" data-testid="not-rated">
            Not rated for this route
          </Badge>
        )}
      </div>
      {!mapping.configured && (
        <p className="small mb-1" data-testid="not-configured">
          Not one of the shop&apos;s upstreams (LABEL_UPSTREAMS): nothing is bought here, but the mapping can be prepared.
        </p>
      )}
      <Row className="g-2 small">
        <Col xs={12} sm={4}>
          <Form.Label className="mb-0" htmlFor={fieldId('carrier')}>
            Carrier
          </Form.Label>
          <Form.Control
            size="sm"
            id={fieldId('carrier')}
            aria-label={of('Carrier')}
            value={carrier}
            isInvalid={!!errors.carrier}
            onChange={(e) => setCarrier(e.currentTarget.value)}
          />
          <Form.Control.Feedback type="invalid">{errors.carrier}</Form.Control.Feedback>
        </Col>
        <Col xs={12} sm={5}>
          <Form.Label className="mb-0" htmlFor={fieldId('service')}>
            Service
          </Form.Label>
          <ServiceField
            id={fieldId('service')}
            label={of('Service')}
            mapping={mapping}
            carrier={carrier}
            value={name}
            error={errors.service}
            onChange={setName}
          />
        </Col>
        <Col xs={12} sm={3}>
          <Form.Label className="mb-0" htmlFor={fieldId('account')}>
            Carrier account
          </Form.Label>
          <Form.Control
            size="sm"
            id={fieldId('account')}
            aria-label={of('Carrier account')}
            placeholder="any"
            value={account}
            isInvalid={!!errors.carrierAccount}
            onChange={(e) => setAccount(e.currentTarget.value)}
          />
          <Form.Control.Feedback type="invalid">{errors.carrierAccount}</Form.Control.Feedback>
        </Col>
      </Row>
      <div className="d-flex flex-wrap gap-1 mt-2">
        <Button
          size="sm"
          variant="outline-primary"
          aria-label={`Save the ${title} service of ${service.uid}`}
          disabled={update.isPending}
          onClick={() => send({ carrier, service: name, carrierAccount: account })}
        >
          Save
        </Button>
        <Button
          size="sm"
          variant="outline-secondary"
          aria-label={`Clear the ${title} service of ${service.uid}`}
          title={`Stop buying ${service.name} at ${title}`}
          disabled={update.isPending || !mapping.mapping}
          onClick={() => send({ carrier: '', service: '', carrierAccount: '' })}
        >
          Clear
        </Button>
      </div>
    </div>
  );
}

/** The saved mapping in a key: a save (or another operator's) starts the editor again from what the server holds. */
const mappingKey = (service: Service, m: Mapping) => [service._id, m.upstream, m.mapping?.carrier, m.mapping?.service, m.mapping?.carrierAccount].join(':');

/**
 * On the Prices page: what each label type is bought as at every upstream that sells postage (EasyPost, Shippo), one
 * editor each; every change is audited.
 */
export function UpstreamServicesCard() {
  const services = useQuery({ ...upstreamServicesQuery(), refetchOnMount: 'always' });
  const data = services.data;
  // With the sandbox among the shop's upstreams every enabled type is offered (it makes every label itself).
  const sandbox = data?.upstreams.some((u) => u.name === 'sandbox') ?? false;
  return (
    <Card className="mt-3">
      <Card.Header>
        <h2 className="h6 mb-0">Upstream services</h2>
      </Card.Header>
      <Card.Body>
        {services.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={services} what="the upstream services" />
        {data && (
          <p className="small text-muted">
            The shop buys at <strong data-testid="configured-upstreams">{data.upstreams.map((u) => titleOf(u.name)).join(', ') || 'no upstream'}</strong>{' '}
            (LABEL_UPSTREAMS, in order of preference). A type is bought at an upstream only where it has a carrier and service there
            {sandbox ? '' : ', and is not offered to customers where none of the shop\u2019s upstreams has one'}. The services offered are those each upstream
            rated for the type&apos;s reference packages (see <Link to="/admin/price-check">Price check</Link>).
          </p>
        )}
      </Card.Body>
      <ListGroup variant="flush" data-testid="upstream-table">
        {data?.services.map((service) => {
          const offered = sandbox || service.mappings.some((m) => m.configured && m.mapping);
          return (
            <ListGroup.Item key={service._id} data-testid="upstream-row" data-uid={service.uid}>
              <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
                <h3 className="h6 mb-0">{service.name}</h3>
                <span className="font-monospace small text-muted">{service.uid}</span>
                {!offered && (
                  <Badge bg="secondary" data-testid="not-offered">
                    Not offered
                  </Badge>
                )}
              </div>
              <Row className="g-2" xs={1} lg={2}>
                {service.mappings.map((mapping) => (
                  <Col key={mapping.upstream}>
                    <MappingEditor key={mappingKey(service, mapping)} service={service} mapping={mapping} />
                  </Col>
                ))}
              </Row>
            </ListGroup.Item>
          );
        })}
      </ListGroup>
    </Card>
  );
}
