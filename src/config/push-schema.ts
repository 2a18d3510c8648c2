import { z } from 'zod';
import { ENV_VAR_NAME } from './connection-schema';
import { documented } from './schema-common';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function settingName(description: string) {
  return documented(
    z.string().regex(ENV_VAR_NAME, {
      // The value may be the secret itself, typed into the wrong place: never echo it.
      message: 'must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
    }),
    description,
  );
}

/** A job's `push` block: how changes pushed to `POST /api/hooks/{job}` are checked and read. */
export const pushSchema = documented(
  z
    .strictObject({
      format: documented(
        z.enum(['generic', 'dataverse', 'businesscentral']).default('generic'),
        "Body of a notification: generic (Highwater's own: { sentAt, changes: [{ action, record }] }), dataverse (a RemoteExecutionContext from a webhook or Service Bus service endpoint) or businesscentral (webhook notifications of a subscription Highwater keeps). Default generic.",
      ),
      secret: settingName(
        'App setting holding the shared secret the local host checks: header x-highwater-key, or x-highwater-signature: sha256=<hex HMAC-SHA256 of the body>. The Functions app checks its function key instead.',
      ).optional(),
      clientState: settingName("generic and businesscentral: app setting holding the value each notification's clientState must equal (Business Central: sent when subscribing).").optional(),
      notificationUrl: settingName(
        'businesscentral only (required): app setting holding the public URL Business Central posts to, e.g. https://<app>/api/hooks/<job>?code=<function key>.',
      ).optional(),
      table: documented(
        z.string().regex(/^[a-z_][a-z0-9_]*$/, { message: 'expected a table logical name (lower case letters, digits and _), e.g. account' }).optional(),
        "dataverse only: the table's logical name as contexts name it (PrimaryEntityName, e.g. account). Default: the mapping's source entity; set it when that is the entity set (accounts), as for a job that also polls.",
      ),
      organizationId: documented(
        z.string().regex(UUID, { message: 'expected a GUID (the environment\'s organization id)' }).optional(),
        "dataverse only: the OrganizationId every context must carry (the environment's id).",
      ),
      maxAgeSeconds: documented(
        z.number().int().min(1).max(172_800).optional(),
        'Notifications sent longer ago than this are refused as replays (400). Default 600 (the duplicate detection window); businesscentral 129600 (36 h, how long Business Central retries).',
      ),
      imageMissingIsNull: documented(
        z.boolean().default(false),
        'dataverse only: a mapped column missing from the post-image is null (the image holds every mapped column; Dataverse leaves null columns out). Default false: a poll of the job is asked for instead.',
      ),
    })
    .superRefine((push, ctx) => {
      if (push.format === 'dataverse' && push.clientState !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['clientState'], message: 'only allowed when format is generic or businesscentral' });
      }
      if (push.format === 'businesscentral' && push.notificationUrl === undefined) {
        ctx.addIssue({ code: 'custom', path: ['notificationUrl'], message: 'required when format is businesscentral (the URL subscriptions are created with)' });
      }
      if (push.format !== 'businesscentral' && push.notificationUrl !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['notificationUrl'], message: 'only allowed when format is businesscentral' });
      }
      if (push.format !== 'dataverse' && push.organizationId !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['organizationId'], message: 'only allowed when format is dataverse' });
      }
      if (push.format !== 'dataverse' && push.table !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['table'], message: 'only allowed when format is dataverse' });
      }
      if (push.format !== 'dataverse' && push.imageMissingIsNull) {
        ctx.addIssue({ code: 'custom', path: ['imageMissingIsNull'], message: 'only allowed when format is dataverse' });
      }
    }),
  'Changes pushed to POST /api/hooks/{job} besides the schedule. A pushed change never moves the watermark; the poll stays the safety net.',
  'Push',
);
