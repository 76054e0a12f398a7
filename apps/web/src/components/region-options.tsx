import { US_REGIONS, type Region } from '@portal/contract';

/** The options of a State select: 'Select state', then the regions by name (the US list unless told). */
export function RegionOptions({ regions = US_REGIONS }: { regions?: readonly Region[] }) {
  return (
    <>
      <option value="">Select state</option>
      {regions.map((region) => (
        <option key={region.ID} value={region.ID}>
          {region.Name}
        </option>
      ))}
    </>
  );
}
