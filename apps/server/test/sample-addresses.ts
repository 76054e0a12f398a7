// The tests' sample sender and recipient, written once; each shape a caller needs is made from them. A test about
// a particular address (a PO box, a too-long street, one the carrier cannot verify) writes that one itself.

export type Party = { name: string; street: string; city: string; state: string; zip: string; country: string };

export const SENDER: Party = { name: 'Jane Sender', street: '123 Main Street', city: 'New York', state: 'NY', zip: '10001', country: 'United States' };
export const RECIPIENT: Party = {
  name: 'John Receiver',
  street: '456 Oak Avenue',
  city: 'Beverly Hills',
  state: 'CA',
  zip: '90210',
  country: 'United States',
};
/** A second recipient, with a company and a second street line. */
export const COMPANY_RECIPIENT: Party & { company: string; street2: string } = {
  name: 'Maria Garcia',
  company: 'Garcia Design',
  street: '789 Pine Road',
  street2: 'Apt 12B',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
  country: 'United States',
};
/** A Canadian pair, for the UPS types (which ship within Canada). */
export const CA_SENDER: Party = { name: 'Marie Expeditrice', street: '100 Wellington Street', city: 'Ottawa', state: 'ON', zip: 'K1A 0B1', country: 'Canada' };
export const CA_RECIPIENT: Party = { name: 'Paul Destinataire', street: '290 Bremner Blvd', city: 'Toronto', state: 'ON', zip: 'M5V 3L9', country: 'Canada' };

/** The order form's fields of a sender and a recipient (FromName, FromStreet… ToZip, ToCountry), as an order and a CSV row name them. */
export const orderParties = (from: Party = SENDER, to: Party = RECIPIENT) => ({
  FromName: from.name,
  FromStreet: from.street,
  FromCity: from.city,
  FromState: from.state,
  FromZip: from.zip,
  FromCountry: from.country,
  ToName: to.name,
  ToStreet: to.street,
  ToCity: to.city,
  ToState: to.state,
  ToZip: to.zip,
  ToCountry: to.country,
});

/** The packing-slip reader's sender fields (fromName, fromStreet1…), as its form sends them. */
export const slipSender = (from: Party = SENDER) => ({
  fromName: from.name,
  fromStreet1: from.street,
  fromCity: from.city,
  fromState: from.state,
  fromZip: from.zip,
});

/** A party as the order form's Quick Order box reads it: name; street (and ", street 2"); "city, state"; ZIP. */
export const quickText = (party: Party, street2?: string) =>
  [party.name, street2 ? `${party.street}, ${street2}` : party.street, `${party.city}, ${party.state}`, party.zip].join('\n');
