// `npm run lint` (CI runs it after the type check): typescript-eslint with type information on
// the TypeScript, plain recommended rules on the few JavaScript files. Kept to rules that catch
// real faults (promises left floating, assertions that assert nothing, dead code); rules that
// only flagged idioms of this tree are off, each with its reason. docs/packaging.md "Lint".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_GLOBALS = {
  process: 'readonly',
  console: 'readonly',
  URL: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
};

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // A `!` tells the compiler a value is there without checking it; narrow instead (a guard,
      // a default, a destructuring with a check) so a wrong guess fails with a message.
      '@typescript-eslint/no-non-null-assertion': 'error',
      // `_name` marks a binding kept on purpose (a field dropped by destructuring, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async function without await is how an interface that returns a promise is met.
      '@typescript-eslint/require-await': 'off',
      // The clients are objects of closures (no `this`); passing their functions around is safe.
      '@typescript-eslint/unbound-method': 'off',
      // String(unknown) is used on purpose where any value must print.
      '@typescript-eslint/no-base-to-string': 'off',
      // `'a' | 'b' | string` documents the values that mean something while accepting others.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: {
      // A test's `!` on a value it has just looked up fails the test loudly enough when wrong.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read untyped JSON (responses, files) and assert on it field by field.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: NODE_GLOBALS },
  },
);
