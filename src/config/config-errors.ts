/** Configuration errors: usage errors (exit 2) whose message names the key and its expected form. */
import { UsageError } from '../errors';

export class ConfigError extends UsageError {
  constructor(message: string, hint?: string) {
    super(message, hint);
    this.name = 'ConfigError';
  }
}
