import { Schema } from "effect"
import { connectClient } from "../pg-client.ts"

/**
 * The shape of the public schema as PostgreSQL's catalogs describe it: tables (ordinary and
 * partitioned, partitions left out: they follow their parent), their keys, unique indexes and
 * foreign keys. Read by the Citus schema test and by `studio citus-plan`, each with its own client
 * (`pg` in the test, the service's SqlClient in the CLI), through the queries below.
 */

export const CatalogTable = Schema.Struct({
  name: Schema.String,
  /** Whether the table has a business_id column, and whether it may be null. */
  business_id: Schema.Literals(["not null", "nullable", "none"])
})
export type CatalogTable = typeof CatalogTable.Type

export const CatalogConstraint = Schema.Struct({
  name: Schema.String,
  /** p: primary key, u: unique, x: exclusion, f: foreign key */
  type: Schema.Literals(["p", "u", "x", "f"]),
  table: Schema.String,
  columns: Schema.Array(Schema.String),
  referenced_schema: Schema.NullOr(Schema.String),
  referenced_table: Schema.NullOr(Schema.String),
  referenced_columns: Schema.NullOr(Schema.Array(Schema.String)),
  /** As `pg_get_constraintdef` prints it, e.g. `FOREIGN KEY (business_id, x) REFERENCES t(business_id, id)`. */
  definition: Schema.String
})
export type CatalogConstraint = typeof CatalogConstraint.Type

/** A unique index that backs no constraint (`create unique index ...`); `(expression)` for expression columns. */
export const CatalogUniqueIndex = Schema.Struct({ name: Schema.String, table: Schema.String, columns: Schema.Array(Schema.String) })
export type CatalogUniqueIndex = typeof CatalogUniqueIndex.Type

/** A column filled by an identity or a sequence (`generated ... as identity`, `serial`, `nextval(...)`). */
export const CatalogGeneratedColumn = Schema.Struct({ table: Schema.String, column: Schema.String, type: Schema.String })
export type CatalogGeneratedColumn = typeof CatalogGeneratedColumn.Type

export interface Catalog {
  readonly tables: ReadonlyArray<CatalogTable>
  readonly constraints: ReadonlyArray<CatalogConstraint>
  readonly uniqueIndexes: ReadonlyArray<CatalogUniqueIndex>
  readonly generatedColumns: ReadonlyArray<CatalogGeneratedColumn>
}

const publicTable = (alias: string) =>
  `${alias}.relnamespace = 'public'::regnamespace and ${alias}.relkind in ('r', 'p') and not ${alias}.relispartition`

export const TABLES_SQL = `
select c.relname::text as name,
       coalesce((select case when a.attnotnull then 'not null' else 'nullable' end from pg_attribute a
                 where a.attrelid = c.oid and a.attname = 'business_id' and a.attnum > 0 and not a.attisdropped), 'none') as business_id
from pg_class c
where ${publicTable("c")}
order by 1`

export const CONSTRAINTS_SQL = `
select con.conname::text as name, con.contype::text as type, c.relname::text as table,
       array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, i)
             join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.i) as columns,
       f.relnamespace::regnamespace::text as referenced_schema,
       f.relname::text as referenced_table,
       case when con.contype = 'f' then
         array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, i)
               join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.i)
       end as referenced_columns,
       pg_get_constraintdef(con.oid) as definition
from pg_constraint con
join pg_class c on c.oid = con.conrelid
left join pg_class f on f.oid = con.confrelid
where ${publicTable("c")} and con.contype in ('p', 'u', 'x', 'f') and con.conparentid = 0
order by c.relname, con.conname`

export const UNIQUE_INDEXES_SQL = `
select i.relname::text as name, c.relname::text as table,
       array(select coalesce(a.attname::text, '(expression)')
             from unnest(x.indkey::int2[]) with ordinality k(attnum, i)
             left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum
             where k.i <= x.indnkeyatts order by k.i) as columns
from pg_index x
join pg_class i on i.oid = x.indexrelid
join pg_class c on c.oid = x.indrelid
where ${publicTable("c")} and x.indisunique
  and not exists (select 1 from pg_constraint con where con.conindid = x.indexrelid and con.conrelid = x.indrelid and con.contype in ('p', 'u', 'x'))
order by c.relname, i.relname`

export const GENERATED_COLUMNS_SQL = `
select c.relname::text as table, a.attname::text as column, format_type(a.atttypid, a.atttypmod) as type
from pg_attribute a
join pg_class c on c.oid = a.attrelid
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where ${publicTable("c")} and a.attnum > 0 and not a.attisdropped
  and (a.attidentity <> '' or pg_get_expr(d.adbin, d.adrelid) like 'nextval(%')
order by 1, 2`

const decodeTables = Schema.decodeUnknownSync(Schema.Array(CatalogTable))
const decodeConstraints = Schema.decodeUnknownSync(Schema.Array(CatalogConstraint))
const decodeUniqueIndexes = Schema.decodeUnknownSync(Schema.Array(CatalogUniqueIndex))
const decodeGeneratedColumns = Schema.decodeUnknownSync(Schema.Array(CatalogGeneratedColumn))

/** Reads the catalog through any client that runs one statement and gives back its rows. */
export const readCatalog = async (query: (sql: string) => Promise<ReadonlyArray<unknown>>): Promise<Catalog> => ({
  tables: decodeTables(await query(TABLES_SQL)),
  constraints: decodeConstraints(await query(CONSTRAINTS_SQL)),
  uniqueIndexes: decodeUniqueIndexes(await query(UNIQUE_INDEXES_SQL)),
  generatedColumns: decodeGeneratedColumns(await query(GENERATED_COLUMNS_SQL))
})

/** Reads the catalog of the database at `url` on a connection of its own. */
export const readCatalogAt = async (url: string): Promise<Catalog> => {
  const client = await connectClient({ connectionString: url })
  try {
    return await readCatalog(async (sql) => (await client.query(sql)).rows)
  } finally {
    await client.end()
  }
}
