import { sql, type Kysely } from 'kysely';

/** The UPS (Canada) types' first defaults (US domestic services), and EasyPost's names of their services inside Canada. */
const MOVES: [uid: string, before: string, after: string][] = [
  ['ups_standard', 'Ground', 'UPSStandard'],
  ['ups_express', 'NextDayAir', 'Express'],
  ['ups_express_saver', 'NextDayAirSaver', 'UPSSaver'],
  ['ups_express_early', 'NextDayAirEarlyAM', 'ExpressPlus'],
  ['ups_expedited', '2ndDayAir', 'Expedited'],
];

/**
 * The five UPS (Canada) label types were mapped by default to UPS's US domestic services, which EasyPost does not rate
 * for a shipment inside Canada: every such order was refused. A type still holding its old default (carrier UPS and
 * that service) is mapped to the Canadian service; one an operator mapped otherwise is left as it is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [uid, before, after] of MOVES)
    await sql`update label_types set upstream_service = ${after} where uid = ${uid} and upstream_carrier = 'UPS' and upstream_service = ${before}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [uid, before, after] of MOVES)
    await sql`update label_types set upstream_service = ${before} where uid = ${uid} and upstream_carrier = 'UPS' and upstream_service = ${after}`.execute(db);
}
