import { US_REGIONS, type Region } from '@portal/contract';

/**
 * The options of a State select: 'Select state', then the regions by name (the US list unless told).
 * `current`, a value not in the list, is offered as itself so the select never shows it as blank.
 */
export function RegionOptions({ regions = US_REGIONS, current = '' }: { regions?: readonly Region[]; current?: string }) {
  const foreign = current !== '' && !regions.some((region) => region.ID === current);
  return (
    <>
      <option value="">Select state</option>
      {foreign && (
        <option key={`not-listed-${current}`} value={current}>
          {current}
        </option>
      )}
      {regions.map((region) => (
        <option key={region.ID} value={region.ID}>
          {region.Name}
        </option>
      ))}
    </>
  );
}
