'use strict';

/** Ends a jest run with the plain summary line CI tools read: "jest: N passed, N failed, N skipped". */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stderr.write(`jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}

module.exports = SummaryReporter;
