import { useState } from 'react';
import { Form } from 'react-bootstrap';
import type { Address } from '@portal/contract';

/** A saved-address choice; picking one hands it to onPick. */
export function SavedAddressSelect({ id, addresses, onPick }: { id: string; addresses: Address[]; onPick: (address: Address) => void }) {
  const [value, setValue] = useState('');
  return (
    <Form.Group controlId={id} className="mb-3">
      <Form.Label>Saved Address</Form.Label>
      <Form.Select
        value={value}
        onChange={(event) => {
          setValue(event.target.value);
          const address = addresses.find((a) => a._id === event.target.value);
          if (address) onPick(address);
        }}
      >
        <option value="">{addresses.length ? 'Choose a saved address' : 'No saved addresses'}</option>
        {addresses.map((address) => (
          <option key={address._id} value={address._id}>
            {address.name} - {address.street}, {address.city}, {address.state}
          </option>
        ))}
      </Form.Select>
    </Form.Group>
  );
}
