import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Spinner, Table } from 'react-bootstrap';
import type { Address } from '@portal/contract';
import { addressesQuery, useDeleteAddress } from '../../api/addresses.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { LoadError } from '../../components/load-error.tsx';
import { AddressModal } from './address-modal.tsx';

function DeleteAddressModal({ address, onClose }: { address: Address | null; onClose: () => void }) {
  const remove = useDeleteAddress();
  return (
    <ConfirmModal
      confirmation={
        address && {
          title: 'Delete Address',
          body: (
            <p className="mb-0">
              Delete the address of <strong>{address.name}</strong>, {address.street}, {address.city}, {address.state} {address.zip}?
            </p>
          ),
          confirmLabel: 'Delete',
          variant: 'danger',
          run: (done) => remove.mutate(address._id, { onSuccess: done }),
        }
      }
      busy={remove.isPending}
      onClose={onClose}
    />
  );
}

/** /address: the saved addresses, with Add, Update and Delete modals. */
export function AddressesPage() {
  const addresses = useQuery({ ...addressesQuery(), refetchOnMount: 'always' });
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
