/**
 * Secret values of a profile: given inline, from an environment variable or from a file. Errors
 * name the field and the variable or file, never the value.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { FieldError } from './field-error.ts';
import { errorCode } from '../spec/index.ts';

export type SecretRef = string | { env: string } | { file: string };

export interface SecretSource {
  readonly baseDir: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Raised with `field: message`; the profile loader turns it into a ProfileError. */
export class SecretRefError extends FieldError {
  override readonly name = 'SecretRefError';
}

/** The text a reference points at. File contents lose one trailing line break (editors add it). */
export function readSecretText(ref: { env: string } | { file: string }, field: string, src: SecretSource): string {
  if ('env' in ref) {
    const v = src.env[ref.env];
    if (v === undefined) throw new SecretRefError(field, `environment variable ${ref.env} is not set`);
    if (v === '') throw new SecretRefError(field, `environment variable ${ref.env} is empty`);
    return v;
  }
  const path = isAbsolute(ref.file) ? ref.file : resolve(src.baseDir, ref.file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = errorCode(e) ?? 'unreadable';
    throw new SecretRefError(field, `cannot read file ${JSON.stringify(ref.file)} (${code})`);
  }
  text = text.replace(/\r?\n$/, '');
  if (text === '') throw new SecretRefError(field, `file ${JSON.stringify(ref.file)} is empty`);
  return text;
}

export function resolveSecretString(ref: SecretRef, field: string, src: SecretSource): string {
  return typeof ref === 'string' ? ref : readSecretText(ref, field, src);
}
