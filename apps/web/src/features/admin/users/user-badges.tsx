import { Badge } from 'react-bootstrap';
import type { AdminUser } from '@portal/contract';

/** Admin or Customer, and Disabled when the account is switched off. */
export function UserBadges({ user }: { user: Pick<AdminUser, 'role' | 'disabled'> }) {
  return (
    <>
      <Badge bg={user.role === 'admin' ? 'primary' : 'secondary'} className="me-1" data-testid="role-badge">
        {user.role === 'admin' ? 'Admin' : 'Customer'}
      </Badge>
      {user.disabled && (
        <Badge bg="danger" data-testid="disabled-badge">
          Disabled
        </Badge>
      )}
    </>
  );
}
