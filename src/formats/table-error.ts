/**
 * The one error the format layer throws: a table (CSV or XLSX) that cannot become records. It
 * carries up to {@link maxProblems} problems located as a spreadsheet program shows them (row 1
 * is the header row, column 1 is column A), so the HTTP layer can answer 400 and the user can
 * find each cell. Problems about the file as a whole (not UTF-8, not a zip) have no row/column.
 */
export interface TableProblem {
  /** 1-based row as a spreadsheet shows it (the header is row 1); absent for a file-level problem. */
  row?: number;
  /** 1-based column (1 = A); absent when the problem concerns a whole row or the file. */
  column?: number;
  message: string;
}

/** More problems than this are not worth reporting: the file needs fixing either way. */
export const maxProblems = 10;

export class TableError extends Error {
  override name = 'TableError';
  constructor(readonly problems: TableProblem[]) {
    super(summarise(problems));
  }
}

/** Shorthand for a file-level problem. */
export const tableError = (message: string, row?: number, column?: number) =>
  new TableError([{ ...(row === undefined ? {} : { row }), ...(column === undefined ? {} : { column }), message }]);

/** Collects problems across a table; throws once there are enough to stop early. */
export class ProblemList {
  readonly problems: TableProblem[] = [];

  add(problem: TableProblem): void {
    this.problems.push(problem);
    if (this.problems.length >= maxProblems) throw new TableError(this.problems);
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new TableError(this.problems);
  }
}

/** Column number to spreadsheet letters: 1 → A, 27 → AA. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

function summarise(problems: TableProblem[]): string {
  const first = problems[0];
  if (!first) return 'the table cannot be read';
  const where = first.row === undefined ? '' : first.column === undefined ? `row ${first.row}: ` : `row ${first.row}, column ${columnLetters(first.column)}: `;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return `${where}${first.message}${more}`;
}
