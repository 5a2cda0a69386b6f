'use strict';

const fs = require('node:fs');

/**
 * Ends a jest run with the plain summary line CI tools read: "jest: N passed, N failed, N skipped". Under
 * scripts/jest-ci.mjs (two jest runs) it appends the counts to SVC_JEST_SUMMARY_FILE instead, and that script prints
 * one line for both runs.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const counts = { passed: results.numPassedTests, failed: results.numFailedTests, skipped: results.numPendingTests };
    if (process.env.SVC_JEST_SUMMARY_FILE) fs.appendFileSync(process.env.SVC_JEST_SUMMARY_FILE, `${JSON.stringify(counts)}\n`);
    else process.stderr.write(`jest: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

module.exports = SummaryReporter;
