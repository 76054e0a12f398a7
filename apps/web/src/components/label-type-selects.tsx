import { forwardRef, type ComponentProps } from 'react';
import { Form } from 'react-bootstrap';
import { PRIORITY_TEMPLATES, type LabelType } from '@portal/contract';
import { money } from './format.ts';

type SelectProps = Omit<ComponentProps<typeof Form.Select>, 'children'>;

/** What the Create and Pay buttons say before a type is chosen, instead of '$0.00'. */
export const CHOOSE_TYPE_FOR_PRICE = 'Choose a type to see the price';

/** What a type costs over its tiers: '$4.50–$26.00', one price when all tiers cost the same, '' without tiers. */
export function priceRange(type: Pick<LabelType, 'prices'>): string {
  if (type.prices.length === 0) return '';
  const prices = type.prices.map((tier) => tier.price);
  const [low, high] = [Math.min(...prices), Math.max(...prices)];
  return low === high ? money(low) : `${money(low)}–${money(high)}`;
}

/** A type as the Type list names it: its name and price range ('UPS Standard (Canada) · $9.50–$36.00'). */
export const typeChoiceText = (type: Pick<LabelType, 'name' | 'prices'>) => (priceRange(type) ? `${type.name} · ${priceRange(type)}` : type.name);

/**
 * The label type list, by _id, with an empty 'Select type' choice first; each type with its price range. A closed
 * select shows what fits its width, so it goes in a column wide enough for the longest choice at md and up; on a
 * phone the form says the chosen type in full under it (ChosenTypeText).
 */
export const LabelTypeSelect = forwardRef<HTMLSelectElement, SelectProps & { labelTypes: LabelType[] }>(function LabelTypeSelect(
  { labelTypes, ...props },
  ref,
) {
  return (
    <Form.Select ref={ref} {...props}>
      <option value="">Select type</option>
      {labelTypes.map((type: LabelType) => (
        <option key={type._id} value={type._id}>
          {typeChoiceText(type)}
        </option>
      ))}
    </Form.Select>
  );
});

/** The chosen type in full under its select on a phone, where the closed select cuts a long choice short. */
export function ChosenTypeText({ type }: { type: Pick<LabelType, 'name' | 'prices'> | undefined }) {
  if (!type) return null;
  return (
    <Form.Text className="d-block d-md-none" data-testid="chosen-type">
      {typeChoiceText(type)}
    </Form.Text>
  );
}

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
