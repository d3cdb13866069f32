// A map kept per tenant, so no in-memory lookup can reach another tenant's records.

/** Values by tenant, then by key; values go in and come out as copies, as they would through a database. */
export class TenantMap<V> {
  private readonly byTenant = new Map<string, Map<string, V>>();

  /** A copy of the value, or undefined. */
  get(tenant: string, key: string): V | undefined {
    const value = this.byTenant.get(tenant)?.get(key);
    return value === undefined ? undefined : structuredClone(value);
  }

  /** True when the tenant has a value under `key`. */
  has(tenant: string, key: string): boolean {
    return this.byTenant.get(tenant)?.has(key) ?? false;
  }

  /** Stores a copy of the value. */
  set(tenant: string, key: string, value: V): void {
    let values = this.byTenant.get(tenant);
    if (!values) this.byTenant.set(tenant, (values = new Map()));
    values.set(key, structuredClone(value));
  }

  /** Removes the value under `key`; false when there was none. */
  delete(tenant: string, key: string): boolean {
    return this.byTenant.get(tenant)?.delete(key) ?? false;
  }

  /** Copies of the tenant's values matching `keep`, in insertion order. */
  filter(tenant: string, keep: (value: V) => boolean): V[] {
    return [...(this.byTenant.get(tenant)?.values() ?? [])].filter(keep).map((v) => structuredClone(v));
  }

  /** Every tenant's values as plain data (for a store that saves itself to a file). */
  entries(): [tenant: string, values: [key: string, value: V][]][] {
    return [...this.byTenant].map(([tenant, values]) => [tenant, [...values].map(([k, v]) => [k, structuredClone(v)])]);
  }

  /** Replaces every value with `entries` (what {@link entries} returned). */
  load(entries: [string, [string, V][]][]): void {
    this.byTenant.clear();
    for (const [tenant, values] of entries) for (const [key, value] of values) this.set(tenant, key, value);
  }
}
