import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card } from 'react-bootstrap';
import type { SavedPackage } from '@portal/contract';
import { packagesQuery, useDeletePackage } from '../../api/packages.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { PagedTable, type Columns } from '../../components/paged-table.tsx';
import { PackageModal } from './package-modal.tsx';

const size = (saved: SavedPackage) => (saved.length === null ? '' : `${saved.length} × ${saved.width} × ${saved.height} in`);

function DeletePackageModal({ saved, onClose }: { saved: SavedPackage | null; onClose: () => void }) {
  const remove = useDeletePackage();
  return (
    <ConfirmModal
      confirmation={
        saved && {
          title: 'Delete Package',
          body: (
            <p className="mb-0">
              Delete the package <strong>{saved.name}</strong>? Orders made with it keep their weight and size.
            </p>
          ),
          confirmLabel: 'Delete',
          variant: 'danger',
          run: (done) => remove.mutate(saved._id, { onSuccess: done }),
        }
      }
      busy={remove.isPending}
      onClose={onClose}
    />
  );
}

/** /packages: the saved packages (named weights and sizes the order forms fill in), with Add, Update and Delete modals. */
export function PackagesPage() {
  const packages = useQuery({ ...packagesQuery(), refetchOnMount: 'always' });
  // The modal keeps its package while it fades out, so its title does not change on the way.
  const [editor, setEditor] = useState<{ show: boolean; saved: SavedPackage | null }>({ show: false, saved: null });
  const [deleting, setDeleting] = useState<SavedPackage | null>(null);
  const rows = packages.data?.packages ?? [];
  const columns: Columns<SavedPackage> = [
    { header: 'Name', td: { className: 'stack-key' }, cell: (saved) => saved.name },
    { header: 'Weight', td: { 'data-label': 'Weight' }, cell: (saved) => `${saved.weight} ${saved.weightUnit}` },
    // A card on a phone leaves out a size the package does not have.
    {
      header: 'Size (L × W × H)',
      td: (saved) => ({ 'data-label': 'Size', className: saved.length === null ? 'stack-hide' : undefined }),
      cell: size,
    },
    {
      header: 'Action',
      td: { className: 'text-nowrap stack-actions' },
      cell: (saved) => (
        <>
          <Button size="sm" variant="outline-primary" className="me-2" onClick={() => setEditor({ show: true, saved })}>
            Edit
          </Button>
          <Button size="sm" variant="outline-danger" onClick={() => setDeleting(saved)}>
            Delete
          </Button>
        </>
      ),
    },
  ];

  return (
    <>
      <h1 className="h4 mb-4">Packages</h1>
      <Card>
        <Card.Header className="d-flex align-items-center">
          <h6 className="mb-0 me-auto">Saved Packages</h6>
          <Button size="sm" onClick={() => setEditor({ show: true, saved: null })}>
            Add Package
          </Button>
        </Card.Header>
        <Card.Body>
          <p className="small text-muted">Pick a saved package on Create Order to fill in its weight and size, or name it in the reseller API.</p>
          <PagedTable
            query={packages}
            rows={rows}
            columns={columns}
            what="the saved packages"
            empty="No saved packages yet"
            testId="packages-table"
            rowProps={() => ({ 'data-testid': 'package-row' })}
            stack
          />
        </Card.Body>
      </Card>
      <PackageModal show={editor.show} saved={editor.saved} onClose={() => setEditor((e) => ({ ...e, show: false }))} />
      <DeletePackageModal saved={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
