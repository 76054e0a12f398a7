// The contract's checks of an order (its zod schemas, phone and state rules): a chunk of their own,
// fetched when a form first checks an order, so opening Create Order does not download zod.
export { orderIssues, stateViolation } from '@portal/contract';
