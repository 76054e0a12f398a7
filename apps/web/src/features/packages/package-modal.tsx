import { useLayoutEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Col, Form, InputGroup, Modal, Row, Spinner } from 'react-bootstrap';
import { PACKAGE_NAME_MAX, packageBody, type PackageBody, type PackageInput, type PackageWeightUnit, type SavedPackage } from '@portal/contract';
import { ApiError } from '../../api/client.ts';
import { useSavePackage } from '../../api/packages.ts';

/** The form's fields as typed: numbers are text until the schema reads them. */
type PackageForm = { name: string; weight: string; weightUnit: PackageWeightUnit; length: string; width: string; height: string };

const text = (n: number | null) => (n === null ? '' : String(n));
const valuesOf = (saved: SavedPackage | null): PackageForm =>
  saved
    ? {
        name: saved.name,
        weight: text(saved.weight),
        weightUnit: saved.weightUnit,
        length: text(saved.length),
        width: text(saved.width),
        height: text(saved.height),
      }
    : { name: '', weight: '', weightUnit: 'lb', length: '', width: '', height: '' };

type PackageModalProps = {
  show: boolean;
  /** The package being changed; null adds a new one. */
  saved: SavedPackage | null;
  onClose: () => void;
};

/** 'Add Package' or 'Update Package': a name, a weight in lb or oz, and length x width x height in inches (all or none). */
export function PackageModal({ show, saved, onClose }: PackageModalProps) {
  const { register, handleSubmit, reset, formState, setError } = useForm<PackageBody, unknown, PackageInput>({
    resolver: zodResolver(packageBody),
    defaultValues: valuesOf(null),
  });
  const { errors } = formState;
  const save = useSavePackage();
  const busy = save.isPending;

  // Before the modal is painted, so nothing typed into it is cleared.
  useLayoutEffect(() => {
    if (show) reset(valuesOf(saved));
  }, [show, saved, reset]);

  const onSubmit = handleSubmit((body) =>
    save.mutate(
      { id: saved?._id ?? null, body },
      {
        onSuccess: onClose,
        // A name taken by another package is said beside the name too (the toast says it as well).
        onError: (error) => {
          if (error instanceof ApiError && error.status === 409) setError('name', { message: error.message });
        },
      },
    ),
  );

  const title = saved ? 'Update Package' : 'Add Package';
  const dimension = (name: 'length' | 'width' | 'height', label: string) => (
    <Col xs={4}>
      <Form.Group controlId={`package-${name}`}>
        <Form.Label>{label}</Form.Label>
        <Form.Control type="text" inputMode="decimal" placeholder="in" isInvalid={!!errors[name]} {...register(name)} />
        <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
      </Form.Group>
    </Col>
  );

  return (
    <Modal show={show} onHide={busy ? () => undefined : onClose} centered>
      <Form onSubmit={(event) => void onSubmit(event)} noValidate aria-label={title}>
        <Modal.Header closeButton={!busy}>
          <Modal.Title as="h5">{title}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Row className="g-3">
            <Col xs={12}>
              <Form.Group controlId="package-name">
                <Form.Label>Name</Form.Label>
                <Form.Control maxLength={PACKAGE_NAME_MAX} placeholder="Small box" isInvalid={!!errors.name} {...register('name')} />
                <Form.Control.Feedback type="invalid">{errors.name?.message}</Form.Control.Feedback>
              </Form.Group>
            </Col>
            <Col xs={12}>
              <Form.Group controlId="package-weight">
                <Form.Label>Weight</Form.Label>
                <InputGroup hasValidation>
                  <Form.Control type="text" inputMode="decimal" isInvalid={!!errors.weight} {...register('weight')} />
                  <Form.Select aria-label="Weight unit" className="flex-grow-0 w-auto" {...register('weightUnit')}>
                    <option value="lb">lb</option>
                    <option value="oz">oz</option>
                  </Form.Select>
                  <Form.Control.Feedback type="invalid">{errors.weight?.message}</Form.Control.Feedback>
                </InputGroup>
              </Form.Group>
            </Col>
            {dimension('length', 'Length')}
            {dimension('width', 'Width')}
            {dimension('height', 'Height')}
            <Col xs={12}>
              <Form.Text>Dimensions in inches: all three, or none.</Form.Text>
            </Col>
          </Row>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-2" />}
            {saved ? 'Update' : 'Save'}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
