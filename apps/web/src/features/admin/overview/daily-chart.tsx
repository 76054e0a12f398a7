import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Overview } from '@portal/contract';
import { money } from '../../../components/format.ts';

const HEIGHT = 260;
const usd = (dollars: number | null | undefined) => (dollars == null ? '' : money(dollars));

/**
 * Daily label sales and deposits of the last 30 days, drawn by uPlot on a canvas. Loaded on its own
 * (the overview imports it lazily), so the other console pages never load the chart library.
 */
export function DailyChart({ daily }: { daily: Overview['daily'] }) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    // uPlot's time axis counts seconds; each day is its UTC midnight.
    const days = daily.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 300),
        height: HEIGHT,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { x: { time: true } },
        axes: [{}, { values: (_self, ticks) => ticks.map((t) => `$${t}`), size: 70 }],
        series: [
          { label: 'Day', value: '{YYYY}-{MM}-{DD}' },
          { label: 'Sales', stroke: '#0d6efd', width: 2, fill: 'rgba(13,110,253,0.08)', value: (_self, v) => usd(v) },
          { label: 'Deposits', stroke: '#198754', width: 2, value: (_self, v) => usd(v) },
        ],
      },
      [days, daily.map((d) => d.sales), daily.map((d) => d.deposits)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 300), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [daily]);

  return <div ref={container} data-testid="daily-chart" aria-label="Daily sales and deposits, last 30 days" role="img" />;
}
