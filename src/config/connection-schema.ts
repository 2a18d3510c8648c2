import { z } from 'zod';
import { formatPath } from '../platform/config-issue';
import { documented, nonEmptyString, objectName } from './schema-common';

/** App setting / environment variable names: what a secret reference must look like. */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const secretReference = documented(
  z.string().regex(ENV_VAR_NAME, {
    // The value may be a secret typed into the wrong place: the message must not echo it.
    message: 'must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
  }),
  'Name of the app setting (environment variable) that holds the secret.',
);

export const connectionSchema = documented(
  z
    .strictObject({
      name: objectName('connection'),
      type: documented(nonEmptyString(), 'Connector kind, e.g. sqlite, postgres, odata, dataverse, businesscentral.'),
      settings: documented(
        z.record(z.string(), z.unknown()).default({}),
        "The connector's own settings. No secrets here: reference them in `secrets`.",
      ),
      secrets: documented(
        z.record(z.string(), secretReference).default({}),
        'Connector setting → name of the app setting (env var) holding its secret value, e.g. { password: CRM_PASSWORD }.',
      ),
      maxConcurrency: documented(
        z.number().int().positive().default(8),
        'Most requests in flight at once against this system. Default 8.',
      ),
    })
    .superRefine((connection, ctx) => {
      for (const key of Object.keys(connection.secrets)) {
        if (Object.prototype.hasOwnProperty.call(connection.settings, key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['secrets', key],
            message: `${formatPath(['settings', key])} is also set; a setting is either a literal in settings or a reference in secrets`,
          });
        }
      }
    }),
  'A connection to a source or target system.',
  'Connection',
);
