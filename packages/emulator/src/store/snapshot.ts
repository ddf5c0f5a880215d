import { ENVIRONMENTS, type DataSourceMapping, type Environment, type UserGroupProperties } from '@embedded-dashboard/protocol';

/** A user group as the emulator keeps it. */
export interface StoredGroup {
  teamId: number;
  environment: Environment;
  providedId: string;
  name: string;
  mapping: DataSourceMapping;
  properties: UserGroupProperties | null;
  /** The group's current token. */
  token: string;
}

/** A token the emulator issued that may still be honoured. */
export interface StoredToken {
  token: string;
  environment: Environment;
  providedId: string;
  /** Epoch ms of issue; the TTL counts from here. */
  issuedAt: number;
  /** Epoch ms at which a rotation replaced it; the grace period counts from here. */
  retiredAt: number | null;
  /** Set by the admin `expire` route: stops working at once. */
  expired: boolean;
}

/** Everything the emulator persists; the data file holds exactly this as JSON. */
export interface StoreSnapshot {
  version: 1;
  nextTeamId: number;
  groups: StoredGroup[];
  tokens: StoredToken[];
}

export const emptySnapshot = (): StoreSnapshot => ({ version: 1, nextTeamId: 1, groups: [], tokens: [] });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEnvironment = (v: unknown): v is Environment => (ENVIRONMENTS as readonly unknown[]).includes(v);
const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function checkGroup(value: unknown, index: number): StoredGroup {
  const where = `groups[${index}]`;
  if (!isRecord(value)) throw new Error(`${where} is not an object`);
  const { teamId, environment, providedId, name, mapping, properties, token } = value;
  if (!Number.isSafeInteger(teamId)) throw new Error(`${where}.teamId is not an integer`);
  if (!isEnvironment(environment)) throw new Error(`${where}.environment is not Customer or Testing`);
  if (!isNonEmptyString(providedId) || !isNonEmptyString(name) || !isNonEmptyString(token)) throw new Error(`${where} lacks providedId, name or token`);
  if (!isRecord(mapping) || !Object.values(mapping).every((v) => typeof v === 'string')) throw new Error(`${where}.mapping is not an object of strings`);
  if (properties !== null && !isRecord(properties)) throw new Error(`${where}.properties is not an object or null`);
  return { teamId: teamId as number, environment, providedId, name, mapping: mapping as DataSourceMapping, properties, token };
}

function checkToken(value: unknown, index: number): StoredToken {
  const where = `tokens[${index}]`;
  if (!isRecord(value)) throw new Error(`${where} is not an object`);
  const { token, environment, providedId, issuedAt, retiredAt, expired } = value;
  if (!isNonEmptyString(token) || !isNonEmptyString(providedId)) throw new Error(`${where} lacks token or providedId`);
  if (!isEnvironment(environment)) throw new Error(`${where}.environment is not Customer or Testing`);
  if (!isTime(issuedAt) || (retiredAt !== null && !isTime(retiredAt)) || typeof expired !== 'boolean') throw new Error(`${where} has bad times or flags`);
  return { token, environment, providedId, issuedAt, retiredAt, expired };
}

/** Checks an untrusted parsed value; throws an `Error` naming the first problem. */
export function parseSnapshot(value: unknown): StoreSnapshot {
  if (!isRecord(value)) throw new Error('not a JSON object');
  if (value.version !== 1) throw new Error(`unsupported version ${JSON.stringify(value.version)}`);
  if (!Number.isSafeInteger(value.nextTeamId) || (value.nextTeamId as number) < 1) throw new Error('nextTeamId is not a positive integer');
  if (!Array.isArray(value.groups) || !Array.isArray(value.tokens)) throw new Error('groups or tokens is not an array');
  return {
    version: 1,
    nextTeamId: value.nextTeamId as number,
    groups: value.groups.map(checkGroup),
    tokens: value.tokens.map(checkToken),
  };
}
