import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Spinner } from 'react-bootstrap';
import { errorMessage } from '../../../api/client.ts';
import { adminContentQuery } from '../../../api/admin.ts';
import { AnnouncementCard } from './announcement-card.tsx';
import { FaqsCard } from './faqs-card.tsx';
import { TermsCard } from './terms-card.tsx';

/** /admin/content: the announcement, the FAQs and the terms customers read. */
export function ContentPage() {
  const content = useQuery({ ...adminContentQuery(), refetchOnMount: 'always' });
  useEffect(() => {
    if (content.error) console.error('Failed to load the content', content.error);
  }, [content.error]);
  if (content.isPending) return <Spinner animation="border" size="sm" />;
  if (!content.data) return <Alert variant="danger">{errorMessage(content.error)}</Alert>;
  return (
    <>
      <h2 className="h5 mb-3">Content</h2>
      <AnnouncementCard content={content.data} />
      <FaqsCard faqs={content.data.faqs} />
      <TermsCard tos={content.data.tos} />
    </>
  );
}
