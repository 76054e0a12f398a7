import { TodayLabelsCard } from './today-labels-card.tsx';
import { ScanFormsCard } from './scan-forms-card.tsx';
import { PickupsCard } from './pickups-card.tsx';

/** /scan-forms: the end of a shipping day. Today's labels grouped as SCAN forms take them, the forms made, and the carrier pickups. */
export function ScanFormsPage() {
  return (
    <>
      <h1 className="h4 mb-4">End of day</h1>
      <TodayLabelsCard />
      <ScanFormsCard />
      <PickupsCard />
    </>
  );
}
