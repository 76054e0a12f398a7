import { forwardRef, type ComponentProps } from 'react';
import { Form } from 'react-bootstrap';
import { PRIORITY_TEMPLATES, type LabelType } from '@portal/contract';

type SelectProps = Omit<ComponentProps<typeof Form.Select>, 'children'>;

/** The label type list, by _id, with an empty 'Select type' choice first. */
export const LabelTypeSelect = forwardRef<HTMLSelectElement, SelectProps & { labelTypes: LabelType[] }>(function LabelTypeSelect({ labelTypes, ...props }, ref) {
  return (
    <Form.Select ref={ref} {...props}>
      <option value="">Select type</option>
      {labelTypes.map((type: LabelType) => (
        <option key={type._id} value={type._id}>
          {type.name}
        </option>
      ))}
    </Form.Select>
  );
});

/** The priority label templates (pitney, normal, evs). */
export const TemplateSelect = forwardRef<HTMLSelectElement, SelectProps>(function TemplateSelect(props, ref) {
  return (
    <Form.Select ref={ref} {...props}>
      <option value="">Select template</option>
      {PRIORITY_TEMPLATES.map((template) => (
        <option key={template.value} value={template.value}>
          {template.label}
        </option>
      ))}
    </Form.Select>
  );
});
