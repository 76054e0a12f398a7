/** What a new shop shows before its operator writes anything: real, useful text for a label shop. */

export const SEED_ANNOUNCEMENT = {
  text: 'Welcome! Top up your balance with crypto and buy USPS, FedEx and UPS labels in seconds. Deposits over $200 earn a bonus of up to 7%.',
  status: true,
};

export const SEED_TOS = `
<h2>1. The service</h2>
<p>This portal sells prepaid shipping labels for USPS, FedEx and UPS. You buy labels from a prepaid balance held in your account. Labels are for your own lawful shipments or those of your customers.</p>
<h2>2. Your account</h2>
<ul>
  <li>You are responsible for everything done with your password and your API key. Keep both secret and regenerate the key if it leaks.</li>
  <li>One person or business per account. Accounts used for fraud, chargeback abuse or prohibited goods are closed and their balance is held for investigation.</li>
</ul>
<h2>3. Balance and deposits</h2>
<ul>
  <li>Deposits are paid by crypto invoice and credited once the payment is confirmed on the network. Deposit bonuses are credited together with the deposit.</li>
  <li>The balance is not a bank account, earns no interest and is not refundable in cash except where the law requires it.</li>
</ul>
<h2>4. Labels</h2>
<ul>
  <li>The price of a label is fixed when you create it and charged at once. A label that cannot be produced is refunded to your balance in full.</li>
  <li>You must enter correct addresses, weights and dimensions. Carriers may charge adjustments for wrong weights or sizes; such adjustments are passed on to you.</li>
  <li>Unused labels may be voided within the carrier's window (USPS 30 days, UPS and FedEx 90 days) if they were never scanned.</li>
  <li>Do not ship hazardous, illegal or carrier-prohibited items.</li>
</ul>
<h2>5. The reseller API</h2>
<p>API access follows these same terms. Automated use must respect the rate limits and recommended polling intervals in the API documentation.</p>
<h2>6. Liability</h2>
<p>We are not the carrier. Delivery times, losses and damage in transit are governed by the carrier's own terms. Our liability is limited to the amount you paid for the label concerned.</p>
<h2>7. Changes</h2>
<p>We may change these terms; the version shown here is the one in force. Continued use after a change means you accept it.</p>
`.trim();

export const SEED_FAQS: { question: string; answer: string }[] = [
  {
    question: 'How do I add balance to my account?',
    answer:
      'Open Deposits, enter the amount (at least $1) and click to pay. You are taken to a crypto invoice page; once the payment is confirmed your balance is credited automatically, usually within a few minutes.',
  },
  {
    question: 'Do I get a bonus on deposits?',
    answer: 'Yes. Deposits above $200 earn a 2% bonus, above $500 earn 4% and above $1000 earn 7%. The bonus is credited together with the deposit.',
  },
  {
    question: 'Which carriers and services can I buy?',
    answer:
      'USPS Priority Mail and Ground Advantage, FedEx Ground, and UPS Standard, Express, Express Saver, Express Early and Expedited (shipped from Canada). The Type list on the order screen shows what is available right now with its price.',
  },
  {
    question: 'How is the price of a label worked out?',
    answer:
      'Each label type has weight tiers. The price shown on the Create Order button is the tier that holds your package weight, and that is exactly what is charged.',
  },
  {
    question: 'What address format does Quick Order expect?',
    answer:
      'Four lines: the name; the street, optionally followed by a comma and the second street line; "City, State" with the two-letter state code; and the ZIP code.',
  },
  {
    question: 'Can I create many labels at once?',
    answer:
      'Yes. Use USPS CSV: download the sample CSV, fill one row per package, validate the file, then pay the total shown. Large files are processed in the background and you can download a ZIP, a merged PDF and a CSV report when they are done.',
  },
  {
    question: 'What happens if a label fails?',
    answer:
      'A label that cannot be produced is cancelled and its full price is refunded to your balance straight away. You can see every charge and refund in your balance statement.',
  },
  {
    question: 'I forgot my password. What do I do?',
    answer:
      'Use Forgot Password on the sign-in page. A one-time code is sent to the email you verified in Account Setting; enter it with your new password. Codes expire after 10 minutes.',
  },
];
