import { useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Modal, Spinner, Table } from 'react-bootstrap';
import type { Address } from '@portal/contract';
import { ADDRESSES_QUERY_KEY, readAddresses, useDeleteAddress } from '../../api/addresses.ts';
import { LoadError } from '../../components/load-error.tsx';
import { AddressModal } from './address-modal.tsx';

function DeleteAddressModal({ address: current, onClose }: { address: Address | null; onClose: () => void }) {
  // The last address stays on screen while the modal fades out.
  const last = useRef(current);
  if (current) last.current = current;
  const address = last.current;
  const remove = useDeleteAddress();
  const busy = remove.isPending;
  return (
    <Modal show={current !== null} onHide={busy ? () => undefined : onClose} centered>
      <Modal.Header closeButton={!busy}>
        <Modal.Title as="h5">Delete Address</Modal.Title>
      </Modal.Header>
      <Modal.Body>
        {address && (
          <p className="mb-0">
            Delete the address of <strong>{address.name}</strong>, {address.street}, {address.city}, {address.state} {address.zip}?
          </p>
        )}
      </Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button variant="danger" onClick={() => current && remove.mutate(current._id, { onSuccess: onClose })} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-2" />}
          Delete
        </Button>
      </Modal.Footer>
    </Modal>
  );
}

/** /address: the saved addresses, with Add, Update and Delete modals. */
export function AddressesPage() {
  const addresses = useQuery({ queryKey: ADDRESSES_QUERY_KEY, queryFn: readAddresses, refetchOnMount: 'always' });
  // The modal keeps its address while it fades out, so its title does not change on the way.
  const [editor, setEditor] = useState<{ show: boolean; address: Address | null }>({ show: false, address: null });
  const [deleting, setDeleting] = useState<Address | null>(null);
  const rows = addresses.data?.addresses ?? [];

  return (
    <>
      <h1 className="h4 mb-4">Addresses</h1>
      <Card>
        <Card.Header className="d-flex align-items-center">
          <h6 className="mb-0 me-auto">Saved Addresses</h6>
          <Button size="sm" onClick={() => setEditor({ show: true, address: null })}>
            Add Address
          </Button>
        </Card.Header>
        <Card.Body>
          <LoadError query={addresses} what="the saved addresses" />
          <Table responsive hover className="align-middle mb-0 table-stack" data-testid="addresses-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Company</th>
                <th>Street</th>
                <th>Street 2</th>
                <th>City</th>
                <th>State</th>
                <th>ZIP</th>
                <th>Country</th>
                <th>Action</th>
              </tr>
            </thead>
            <tbody>
              {addresses.isPending && (
                <tr>
                  <td colSpan={9} className="text-center">
                    <Spinner animation="border" size="sm" />
                  </td>
                </tr>
              )}
              {addresses.isSuccess && rows.length === 0 && (
                <tr>
                  <td colSpan={9} className="text-center text-muted">
                    No saved addresses yet
                  </td>
                </tr>
              )}
              {rows.map((address) => (
                <tr key={address._id} data-testid="address-row">
                  <td className="stack-key">{address.name}</td>
                  <td data-label="Company" className={address.company ? undefined : 'stack-hide'}>
                    {address.company}
                  </td>
                  <td data-label="Street">{address.street}</td>
                  <td data-label="Street 2" className={address.street2 ? undefined : 'stack-hide'}>
                    {address.street2}
                  </td>
                  <td data-label="City">{address.city}</td>
                  <td data-label="State">{address.state}</td>
                  <td data-label="ZIP">{address.zip}</td>
                  <td className="stack-hide">{address.country}</td>
                  <td className="text-nowrap stack-actions">
                    <Button size="sm" variant="outline-primary" className="me-2" onClick={() => setEditor({ show: true, address })}>
                      Edit
                    </Button>
                    <Button size="sm" variant="outline-danger" onClick={() => setDeleting(address)}>
                      Delete
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card.Body>
      </Card>
      <AddressModal show={editor.show} address={editor.address} saved={rows} onClose={() => setEditor((e) => ({ ...e, show: false }))} />
      <DeleteAddressModal address={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
