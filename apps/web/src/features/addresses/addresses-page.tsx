import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card } from 'react-bootstrap';
import type { Address } from '@portal/contract';
import { addressesQuery, useDeleteAddress } from '../../api/addresses.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
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
  const columns: Columns<Address> = [
    { header: 'Name', td: { className: 'stack-key' }, cell: (address) => address.name },
    // A card on a phone leaves out what the address does not have.
    {
      header: 'Company',
      td: (address) => ({ 'data-label': 'Company', className: address.company ? undefined : 'stack-hide' }),
      cell: (address) => address.company,
    },
    { header: 'Street', td: { 'data-label': 'Street' }, cell: (address) => address.street },
    {
      header: 'Street 2',
      td: (address) => ({ 'data-label': 'Street 2', className: address.street2 ? undefined : 'stack-hide' }),
      cell: (address) => address.street2,
    },
    { header: 'City', td: { 'data-label': 'City' }, cell: (address) => address.city },
    { header: 'State', td: { 'data-label': 'State' }, cell: (address) => address.state },
    { header: 'ZIP', td: { 'data-label': 'ZIP' }, cell: (address) => address.zip },
    { header: 'Country', td: { className: 'stack-hide' }, cell: (address) => address.country },
    {
      header: 'Action',
      td: { className: 'text-nowrap stack-actions' },
      cell: (address) => (
        <>
          <Button size="sm" variant="outline-primary" className="me-2" onClick={() => setEditor({ show: true, address })}>
            Edit
          </Button>
          <Button size="sm" variant="outline-danger" onClick={() => setDeleting(address)}>
            Delete
          </Button>
        </>
      ),
    },
  ];

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
          <PagedTable
            query={addresses}
            rows={rows}
            columns={columns}
            what="the saved addresses"
            empty="No saved addresses yet"
            testId="addresses-table"
            rowProps={() => ({ 'data-testid': 'address-row' })}
            stack
          />
        </Card.Body>
      </Card>
      <AddressModal show={editor.show} address={editor.address} saved={rows} onClose={() => setEditor((e) => ({ ...e, show: false }))} />
      <DeleteAddressModal address={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
