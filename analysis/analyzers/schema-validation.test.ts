import { analyzerTable } from '../testing/analyzer-table.js';
import { schemaValidationAnalyzers } from './schema-validation.js';

describe('schema.ValidationAnalyzer', () => {
  analyzerTable(schemaValidationAnalyzers, [
    { name: 'given valid resources should report nothing', files: ['services.yaml', 'vs-subsets.yaml'], expected: [] },
    {
      name: 'given rules after a catch-all and duplicate matches should report unreachable rules and ineffective matches',
      files: ['vs-unreachable.yaml'],
      expected: ['IST0131 VirtualService default/unreachable', 'IST0130 VirtualService default/unreachable', 'IST0131 VirtualService default/unreachable', 'IST0130 VirtualService default/unreachable'],
    },
    {
      name: 'given schema and semantic errors in several kinds should report every error of every document',
      files: ['schema-invalid.yaml'],
      expected: ['IST0106 VirtualService default/bad-weight', 'IST0106 DestinationRule default/no-host', 'IST0106 Gateway default/unknown-field'],
    },
  ]);
});
