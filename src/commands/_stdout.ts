/**
 * Writes to stdout and resolves once it is handed to the system. A reader that stops early
 * (`mockapi export | head -c 100`) closes the pipe: the command then ends quietly, as `git log |
 * head` does, instead of dying of an unhandled EPIPE with its stack.
 */
export function writeStdout(text: string): Promise<void> {
  return new Promise((done, fail) => {
    const onError = (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? done() : fail(error));
    process.stdout.once('error', onError);
    process.stdout.write(text, (error) => {
      // A failed write also emits 'error', which settles the promise.
      if (error) return;
      process.stdout.off('error', onError);
      done();
    });
  });
}

/** For a command that writes to stdout until stopped (`webhook tail`): a reader closing the pipe ends it quietly. */
export function exitWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}
