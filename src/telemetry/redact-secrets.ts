// Content attributes (`--trace-content`) leave the machine for a collector, so what looks like a
// credential is replaced first: the values of the key variables Glassbox itself reads and of the
// exporter's own headers, then common token shapes (OpenAI/Anthropic keys, bearer tokens, AWS
// key ids, GitHub, GitLab, Slack, Google and Stripe tokens, JWTs, private-key blocks, passwords
// in URLs). Best effort: a secret of no known shape passes.

const SECRET_VARIABLES = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GLASSBOX_TOKEN',
  'GLASSBOX_DATABASE_URL',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'MISTRAL_API_KEY',
  'OPENROUTER_API_KEY',
];

const PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
  // Slack, GitLab, Google API keys, Stripe keys, JSON Web Tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `scheme://user:password@host`: the credentials go, the address stays readable. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/:@]+:[^\s/@]+@/gi;

const REDACTED = '[redacted]';

export function createRedactor(extraSecrets: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  // Short values ("x", "no-key") are placeholders; replacing them would mangle ordinary text.
  const literals = [...SECRET_VARIABLES.map((name) => env[name] ?? ''), ...extraSecrets].filter((value) => value.trim().length >= 8);
  return (text) => {
    let result = text;
    for (const literal of literals) result = result.split(literal).join(REDACTED);
    result = result.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
    for (const pattern of PATTERNS)
      result = result.replace(pattern, (_match, scheme?: string) =>
        typeof scheme === 'string' && /^(bearer|basic)$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED,
      );
    return result;
  };
}
