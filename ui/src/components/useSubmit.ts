// A form's busy flag and last error around one async action: busy while it runs (the submit
// button is disabled), the previous error cleared, a failure kept for <ErrorNote>.
import { useState } from 'preact/hooks';

export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (action: () => Promise<void>, onError: (err: unknown) => void = setError): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
