import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Card, InputGroup, Form, Nav, Spinner, Table } from 'react-bootstrap';
import { useCurrentUser } from '../../api/current-user.ts';
import { resellerBaseUrl, resellerDocumentQuery } from '../../api/reseller.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { MarkdownText } from './markdown-text.tsx';
import { buildResellerDocs, type DocsCall, type DocsError, type DocsSection } from './reseller-docs.ts';

const sectionId = (name: string) => `section-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
const METHOD_VARIANTS: Record<string, string> = { GET: 'success', POST: 'primary', PUT: 'warning', DELETE: 'danger' };

function CodeBlock({ code, label, testId }: { code: string; label: string; testId?: string }) {
  return (
    <div className="api-code-wrap">
      <CopyButton text={code} size="sm" variant="outline-light" className="api-code-copy" aria-label={`Copy ${label}`} />
      <pre className="api-code" aria-label={label} data-testid={testId}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

function ErrorsTable({ errors }: { errors: DocsError[] }) {
  return (
    <Table size="sm" responsive className="align-top" data-testid="errors-table">
      <thead>
        <tr>
          <th>Status</th>
          <th>Meaning</th>
          <th>Example answer</th>
        </tr>
      </thead>
      <tbody>
        {errors.map((error) => (
          <tr key={error.status}>
            <td>
              <Badge bg="danger">{error.status}</Badge>
            </td>
            <td>
              <MarkdownText text={error.description} />
            </td>
            <td>{error.example && <code className="small text-break">{error.example}</code>}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function CallDocs({ call }: { call: DocsCall }) {
  return (
    <article className="api-call" id={call.id} data-testid="api-call" data-call={`${call.method} ${call.path}`}>
      <h3 className="h6 d-flex flex-wrap align-items-center gap-2">
        <Badge bg={METHOD_VARIANTS[call.method] ?? 'secondary'}>{call.method}</Badge>
        <code className="fs-6">{call.path}</code>
        <span className="text-muted fw-normal">{call.summary}</span>
      </h3>
      <MarkdownText text={call.description} />
      {call.body && (
        <p className="small">
          <span className="fw-semibold">Body</span> ({call.body.mediaTypes.join(' or ')}){call.body.description && `: ${call.body.description}`}
        </p>
      )}
      {call.fields.length > 0 && (
        <Table size="sm" responsive className="align-top">
          <thead>
            <tr>
              <th>Name</th>
              <th>In</th>
              <th>Type</th>
              <th>Required</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {call.fields.map((field) => (
              <tr key={`${field.in} ${field.name}`}>
                <td>
                  <code>{field.name}</code>
                </td>
                <td>{field.in}</td>
                <td className="text-nowrap">{field.type}</td>
                <td>{field.required ? <Badge bg="dark">required</Badge> : <span className="text-muted">optional</span>}</td>
                <td>
                  {field.description}
                  {field.notes.length > 0 && <div className="text-muted small">{field.notes.join('; ')}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <div className="small fw-semibold mb-1">Example request</div>
      <CodeBlock code={call.curl} label={`curl example of ${call.method} ${call.path}`} testId="curl" />
      {call.answer && (
        <>
          <div className="small fw-semibold mb-1">
            Answer {call.answer.status}: {call.answer.description}
          </div>
          {call.answer.example ? (
            <CodeBlock code={call.answer.example} label={`Example answer of ${call.method} ${call.path}`} testId="example-answer" />
          ) : (
            <p className="text-muted small">The file itself ({call.answer.mediaType}).</p>
          )}
        </>
      )}
      {call.errors.length > 0 && (
        <p className="small text-muted">
          Errors:{' '}
          {call.errors.map((error) => (
            <Badge key={error.status} bg="light" text="dark" className="border me-1" title={error.description}>
              {error.status}
            </Badge>
          ))}
        </p>
      )}
    </article>
  );
}

function SectionDocs({ section }: { section: DocsSection }) {
  return (
    <Card className="mb-4 api-section" id={sectionId(section.name)} data-testid="api-section">
      <Card.Header>
        <h2 className="h5 mb-0">{section.name}</h2>
      </Card.Header>
      <Card.Body>
        <MarkdownText text={section.description} />
        {section.errors.length > 0 && <ErrorsTable errors={section.errors} />}
        {section.calls.map((call) => (
          <CallDocs call={call} key={call.id} />
        ))}
        {section.events.length > 0 && (
          <>
            <h3 className="h6 mt-3">Webhook events</h3>
            {section.events.map((event) => (
              <div key={event.name} className="mb-2">
                <code>{event.name}</code> <span className="text-muted">{event.summary}</span>
                <div className="small">
                  <MarkdownText text={event.description} />
                </div>
              </div>
            ))}
          </>
        )}
      </Card.Body>
    </Card>
  );
}

/** Reseller API docs, rendered from the API's own OpenAPI document with the user's base URL and key filled in. */
export function ApiDocsPage() {
  const { user } = useCurrentUser();
  const document = useQuery(resellerDocumentQuery());
  if (document.error) console.error('Failed to load the reseller API document', document.error);
  const baseUrl = resellerBaseUrl();
  const apiKey = user?.api_key ?? '';
  const docs = useMemo(() => (document.data ? buildResellerDocs(document.data, baseUrl, apiKey) : undefined), [document.data, baseUrl, apiKey]);

  return (
    <>
      <h1 className="h4 mb-4">Reseller API</h1>
      <Card className="mb-4">
        <Card.Body>
          <Form.Group className="mb-3" controlId="api-base-url">
            <Form.Label className="fw-semibold">Base URL</Form.Label>
            <InputGroup>
              <Form.Control readOnly value={baseUrl} className="font-monospace" data-testid="api-base-url" />
              <CopyButton text={baseUrl} aria-label="Copy base URL" copied="Base URL copied" />
            </InputGroup>
          </Form.Group>
          <Form.Group controlId="api-docs-key">
            <Form.Label className="fw-semibold">
              Authorization: <code>{docs?.keyHeader ?? 'x-api-key'}</code> header
            </Form.Label>
            <InputGroup>
              <Form.Control readOnly value={apiKey} className="font-monospace" data-testid="api-docs-key" />
              <CopyButton text={apiKey} aria-label="Copy API key" copied="API key copied" />
            </InputGroup>
            <Form.Text>Your own key; it spends your balance, so keep it secret. Regenerate it on Account Setting.</Form.Text>
          </Form.Group>
        </Card.Body>
      </Card>

      {document.isPending && <Spinner animation="border" size="sm" />}
      {document.isError && <Alert variant="danger">The API description could not be loaded. Reload the page to try again.</Alert>}
      {docs && (
        <>
          <Card className="mb-4">
            <Card.Body>
              <p className="fw-semibold mb-2">
                {docs.title} <Badge bg="secondary">v{docs.version}</Badge>
              </p>
              <MarkdownText text={docs.description} />
              <Nav className="flex-wrap gap-2" as="ul">
                {docs.sections.map((section) => (
                  <Nav.Item as="li" key={section.name}>
                    <a className="btn btn-sm btn-outline-primary" href={`#${sectionId(section.name)}`}>
                      {section.name}
                    </a>
                  </Nav.Item>
                ))}
              </Nav>
            </Card.Body>
          </Card>
          {docs.sections.map((section) => (
            <SectionDocs section={section} key={section.name} />
          ))}
        </>
      )}
    </>
  );
}
