export type Region = { ID: string; Name: string; Country: 'United States' | 'Canada' };

const us = (ID: string, Name: string): Region => ({ ID, Name, Country: 'United States' });
const ca = (ID: string, Name: string): Region => ({ ID, Name, Country: 'Canada' });

/** The 50 US states, DC and Puerto Rico, then the 13 Canadian provinces and territories. */
export const REGIONS: readonly Region[] = [
  us('AL', 'Alabama'), us('AK', 'Alaska'), us('AZ', 'Arizona'), us('AR', 'Arkansas'),
  us('CA', 'California'), us('CO', 'Colorado'), us('CT', 'Connecticut'), us('DE', 'Delaware'),
  us('DC', 'District of Columbia'), us('FL', 'Florida'), us('GA', 'Georgia'), us('HI', 'Hawaii'),
  us('ID', 'Idaho'), us('IL', 'Illinois'), us('IN', 'Indiana'), us('IA', 'Iowa'),
  us('KS', 'Kansas'), us('KY', 'Kentucky'), us('LA', 'Louisiana'), us('ME', 'Maine'),
  us('MD', 'Maryland'), us('MA', 'Massachusetts'), us('MI', 'Michigan'), us('MN', 'Minnesota'),
  us('MS', 'Mississippi'), us('MO', 'Missouri'), us('MT', 'Montana'), us('NE', 'Nebraska'),
  us('NV', 'Nevada'), us('NH', 'New Hampshire'), us('NJ', 'New Jersey'), us('NM', 'New Mexico'),
  us('NY', 'New York'), us('NC', 'North Carolina'), us('ND', 'North Dakota'), us('OH', 'Ohio'),
  us('OK', 'Oklahoma'), us('OR', 'Oregon'), us('PA', 'Pennsylvania'), us('PR', 'Puerto Rico'),
  us('RI', 'Rhode Island'), us('SC', 'South Carolina'), us('SD', 'South Dakota'),
  us('TN', 'Tennessee'), us('TX', 'Texas'), us('UT', 'Utah'), us('VT', 'Vermont'),
  us('VA', 'Virginia'), us('WA', 'Washington'), us('WV', 'West Virginia'), us('WI', 'Wisconsin'),
  us('WY', 'Wyoming'),
  ca('AB', 'Alberta'), ca('BC', 'British Columbia'), ca('MB', 'Manitoba'),
  ca('NB', 'New Brunswick'), ca('NL', 'Newfoundland and Labrador'), ca('NS', 'Nova Scotia'),
  ca('NT', 'Northwest Territories'), ca('NU', 'Nunavut'), ca('ON', 'Ontario'),
  ca('PE', 'Prince Edward Island'), ca('QC', 'Quebec'), ca('SK', 'Saskatchewan'),
  ca('YT', 'Yukon'),
];

export const US_REGIONS = REGIONS.filter((r) => r.Country === 'United States');
export const CANADA_REGIONS = REGIONS.filter((r) => r.Country === 'Canada');
export const US_STATE_CODES: readonly string[] = US_REGIONS.map((r) => r.ID);
export const CANADA_REGION_CODES: readonly string[] = CANADA_REGIONS.map((r) => r.ID);
