import { useLayoutEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, Form, Spinner } from 'react-bootstrap';
import { announcementBody, type AdminContent } from '@portal/contract';
import { useUpdateAnnouncement } from '../../../api/admin.ts';

type AnnouncementValues = { announcement: string; status: boolean };

/** The banner on every customer's dashboard: its text, and whether it shows. */
export function AnnouncementCard({ content }: { content: AdminContent }) {
  const { register, handleSubmit, reset, formState } = useForm<AnnouncementValues>({
    resolver: zodResolver(announcementBody),
    defaultValues: { announcement: content.announcement, status: content.announcementStatus },
  });
  // Before a refetched text is painted, so nothing typed after it is cleared.
  useLayoutEffect(
    () => reset({ announcement: content.announcement, status: content.announcementStatus }),
    [content.announcement, content.announcementStatus, reset],
  );

  const update = useUpdateAnnouncement();
  const onSubmit = handleSubmit((values) => update.mutate(values));

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Announcement</Card.Header>
      <Card.Body>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label="Announcement">
          <Form.Group controlId="announcement-text" className="mb-2">
            <Form.Label>Text shown on the dashboard</Form.Label>
            <Form.Control as="textarea" rows={3} isInvalid={!!formState.errors.announcement} {...register('announcement')} />
            <Form.Control.Feedback type="invalid">{formState.errors.announcement?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Check type="switch" id="announcement-status" label="Show the announcement" className="mb-3" {...register('status')} />
          <Button type="submit" size="sm" disabled={update.isPending}>
            {update.isPending && <Spinner animation="border" size="sm" className="me-2" />}
            Save announcement
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
