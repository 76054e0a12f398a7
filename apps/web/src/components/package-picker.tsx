import { useState } from 'react';
import { Form } from 'react-bootstrap';
import { describePackage, type SavedPackage } from '@portal/contract';
import { useSavedPackages } from '../api/packages.ts';

/**
 * A choice of the customer's saved packages (Packages page); picking one hands it to onPick, which fills the form's
 * weight and dimensions (packageWeightIn converts its weight to the label type's unit). An empty list says where
 * packages are saved.
 */
export function PackagePicker({
  id = 'saved-package',
  onPick,
  className = 'mb-3',
}: {
  id?: string;
  onPick: (saved: SavedPackage) => void;
  className?: string;
}) {
  const packages = useSavedPackages();
  const [value, setValue] = useState('');
  return (
    <Form.Group controlId={id} className={className}>
      <Form.Label>Saved Package</Form.Label>
      <Form.Select
        value={value}
        disabled={packages.length === 0}
        onChange={(event) => {
          setValue(event.target.value);
          const saved = packages.find((p) => p._id === event.target.value);
          if (saved) onPick(saved);
        }}
      >
        <option value="">{packages.length ? 'Choose a saved package' : 'No saved packages (add them on the Packages page)'}</option>
        {packages.map((saved) => (
          <option key={saved._id} value={saved._id}>
            {describePackage(saved)}
          </option>
        ))}
      </Form.Select>
    </Form.Group>
  );
}
