import { useState } from 'react';
import { Form } from 'react-bootstrap';
import type { Address } from '@portal/contract';

/**
 * A saved-address choice; picking one hands it to onPick. Only addresses of the label type's
 * country are offered (saved addresses are US ones), and an empty list says why.
 */
export function SavedAddressSelect({
  id,
  addresses,
  country,
  onPick,
}: {
  id: string;
  addresses: Address[];
  country: string;
  onPick: (address: Address) => void;
}) {
  const [value, setValue] = useState('');
  const offered = addresses.filter((address) => address.country === country);
  const elsewhere = addresses.length > 0 && offered.length === 0;
  return (
    <Form.Group controlId={id} className="mb-3">
      <Form.Label>Saved Address</Form.Label>
      <Form.Select
        value={value}
        disabled={offered.length === 0}
        onChange={(event) => {
          setValue(event.target.value);
          const address = offered.find((a) => a._id === event.target.value);
          if (address) onPick(address);
        }}
      >
        <option value="">{offered.length ? 'Choose a saved address' : elsewhere ? `No saved addresses in ${country}` : 'No saved addresses'}</option>
        {offered.map((address) => (
          <option key={address._id} value={address._id}>
            {address.name} - {address.street}, {address.city}, {address.state}
          </option>
        ))}
      </Form.Select>
      {elsewhere && (
        <Form.Text data-testid={`${id}-why-empty`}>
          Saved addresses are in the United States; this label type ships within {country}, so type the address.
        </Form.Text>
      )}
    </Form.Group>
  );
}
