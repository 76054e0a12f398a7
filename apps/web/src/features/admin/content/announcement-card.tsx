import { useLayoutEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Spinner } from 'react-bootstrap';
import { toast } from '../../../components/toast.tsx';
import { announcementBody, type AdminContent } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { ADMIN_QUERY_KEY, updateAnnouncement } from '../api.ts';
import { asyncHandler } from '../../../components/async-handler.ts';

type AnnouncementValues = { announcement: string; status: boolean };

/** The banner on every customer's dashboard: its text, and whether it shows. */
export function AnnouncementCard({ content }: { content: AdminContent }) {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<AnnouncementValues>({
    resolver: zodResolver(announcementBody),
    defaultValues: { announcement: content.announcement, status: content.announcementStatus },
  });
  // Before a refetched text is painted, so nothing typed after it is cleared.
  useLayoutEffect(() => reset({ announcement: content.announcement, status: content.announcementStatus }), [content.announcement, content.announcementStatus, reset]);

  const onSubmit = handleSubmit(async ({ announcement, status }) => {
    try {
      const { message } = await updateAnnouncement(announcement, status);
      toast.success(message);
      await Promise.all([ADMIN_QUERY_KEY, ['announcement']].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    } catch (error) {
      toast.error(errorMessage(error));
    }
  });

  return (
    <Card className="mb-4">
      <Card.Header as="h6">Announcement</Card.Header>
      <Card.Body>
        <Form onSubmit={asyncHandler(onSubmit)} noValidate aria-label="Announcement">
          <Form.Group controlId="announcement-text" className="mb-2">
            <Form.Label>Text shown on the dashboard</Form.Label>
            <Form.Control as="textarea" rows={3} isInvalid={!!formState.errors.announcement} {...register('announcement')} />
            <Form.Control.Feedback type="invalid">{formState.errors.announcement?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Check type="switch" id="announcement-status" label="Show the announcement" className="mb-3" {...register('status')} />
          <Button type="submit" size="sm" disabled={formState.isSubmitting}>
            {formState.isSubmitting && <Spinner animation="border" size="sm" className="me-2" />}
            Save announcement
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}
