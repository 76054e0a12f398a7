// The address book's values that need no zod (see index.ts).

// Address verification (EASYPOST_VERIFY_ADDRESSES=true): what the check answers.
export const ADDRESS_VERIFIED = 'Address verified';
export const ADDRESS_CORRECTED = 'The carrier suggests a corrected address';
export const ADDRESS_NOT_CHECKED = 'Addresses are not verified on this shop';
export const ADDRESS_CHECK_UNAVAILABLE = 'The address could not be verified right now; you can order as typed';
