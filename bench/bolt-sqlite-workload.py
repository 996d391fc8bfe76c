#!/usr/bin/env python3
"""Writes the SQL script of one run of bench/bolt-profiles.sh's SQLite workload.

    bench/bolt-sqlite-workload.py SEED > run.sql

Each seed picks its own mix and sizes of SQLite features (tables and indexes,
joins, aggregates, window functions, recursive CTEs, JSON, FTS5, R-tree, triggers,
views, upserts, savepoints, ALTER TABLE, ANALYZE, integrity checks, date and math
functions), so every run's BOLT profile covers different code with different
counts.
"""
import random
import sys

seed = int(sys.argv[1])
r = random.Random(seed)
n = r.choice([1000, 3000, 6000, 12000])
out = []
w = out.append

w(f"pragma journal_mode={r.choice(['wal', 'delete', 'memory', 'truncate'])};")
w(f"pragma cache_size={r.choice([-2000, 50, 200])};")
w(f"pragma page_size={r.choice([1024, 4096, 8192])};")
w("create table item(id integer primary key, name text, grp int, price real, tags text, body blob);")
w("create table sale(id integer primary key autoincrement, item int references item(id), qty int, day text);")
w(f"with recursive c(i) as (select 1 union all select i+1 from c where i<{n}) "
  "insert into item select i, 'item' || printf('%06d', (i*7919) % 1000003), i % 37, "
  "round(abs(random() % 100000) / 100.0, 2), json_array(i % 5, 'x' || (i % 11), i % 3 = 0), "
  "randomblob(abs(random()) % 64) from c;")
w(f"with recursive c(i) as (select 1 union all select i+1 from c where i<{n * 2}) "
  "insert into sale(item, qty, day) select 1 + abs(random()) % " + str(n) +
  ", 1 + abs(random()) % 9, date('2024-01-01', '+' || (i % 365) || ' days') from c;")

w("create index sale_item on sale(item, day);")

features = ['index', 'join', 'window', 'cte', 'json', 'fts', 'rtree', 'trigger', 'view',
            'upsert', 'savepoint', 'alter', 'analyze', 'check', 'datetime', 'math', 'text',
            'blob', 'subquery', 'distinct', 'union', 'delete', 'vacuum', 'dbstat']
for f in r.sample(features, r.randint(10, len(features))):
    k = r.randint(1, 3)
    if f == 'index':
        w("create index item_grp on item(grp, price);")
        w("create index sale_qty on sale(qty);")
        w(f"select grp, count(*), avg(price) from item where grp between {k} and {k + 9} group by grp;")
    elif f == 'join':
        for _ in range(k):
            w("select i.grp, sum(s.qty * i.price) from sale s join item i on i.id = s.item "
              f"where s.qty > {r.randint(1, 8)} group by i.grp order by 2 desc limit 10;")
        w("select count(*) from item i left join sale s on s.item = i.id where s.id is null;")
    elif f == 'window':
        w("select id, price, rank() over w, sum(price) over (partition by grp order by id "
          "rows between 3 preceding and current row), lag(name) over w from item "
          "window w as (partition by grp order by price desc) limit 200;")
        w("select day, sum(qty), avg(sum(qty)) over (order by day range between 6 preceding and current row) "
          "from sale group by day;")
    elif f == 'cte':
        w(f"with recursive fib(a, b, i) as (select 0, 1, 0 union all select b, a + b, i + 1 from fib where i < {40 * k}) "
          "select sum(a % 1000) from fib;")
        w("with t as materialized (select grp, max(price) m from item group by grp) "
          "select count(*) from item join t using (grp) where price = m;")
    elif f == 'json':
        w("select json_extract(tags, '$[1]'), count(*) from item group by 1;")
        w("select sum(json_array_length(tags)), json_group_array(id) is not null from item where grp = 3;")
        w("select key, value from item, json_each(item.tags) where item.id < 200;")
        w("select json_object('id', id, 'n', name, 'p', price) from item where id % 97 = 1;")
    elif f == 'fts':
        w("create virtual table doc using fts5(title, body);")
        w(f"insert into doc select name, name || ' ' || replace(hex(substr(body, 1, 8)), 'A', ' a') || "
          "' grp' || grp from item;")
        w("select count(*) from doc where doc match 'grp1*';")
        w("select title, bm25(doc) from doc where doc match 'a AND grp3' order by bm25(doc) limit 20;")
        w("select highlight(doc, 1, '[', ']') from doc where doc match 'grp7' limit 50;")
    elif f == 'rtree':
        w("create virtual table box using rtree(id, x0, x1, y0, y1);")
        w("insert into box select id, price, price + grp, grp, grp + (id % 13) from item;")
        w("select count(*) from box where x0 > 100 and x1 < 600 and y0 > 5;")
    elif f == 'trigger':
        w("create table log(t text, v int);")
        w("create trigger sale_ins after insert on sale begin insert into log values ('ins', new.qty); end;")
        w("create trigger item_upd after update of price on item when new.price > old.price "
          "begin insert into log values ('up', new.id); end;")
        w(f"insert into sale(item, qty, day) select id, grp % 5, '2025-01-01' from item where id % {k + 1} = 0;")
        w("update item set price = price * 1.1 where grp < 5;")
        w("select t, count(*), sum(v) from log group by t;")
    elif f == 'view':
        w("create view big as select i.*, (select sum(qty) from sale where item = i.id) q from item i;")
        w("select grp, sum(q) from big where q > 10 group by grp;")
    elif f == 'upsert':
        w("create table cnt(k text primary key, v int);")
        w("insert into cnt select substr(name, 5, 3), 1 from item where 1 "
          "on conflict(k) do update set v = v + excluded.v;")
        w("select count(*), max(v) from cnt;")
    elif f == 'savepoint':
        w("begin; savepoint a; delete from sale where qty = 1; rollback to a; "
          "update sale set qty = qty + 1 where qty = 2; release a; commit;")
    elif f == 'alter':
        w("alter table item add column extra text default 'x';")
        w("update item set extra = upper(name) where id % 3 = 0;")
        w("alter table item rename column extra to extra2;")
    elif f == 'analyze':
        w("analyze;")
        w("select * from sqlite_stat1;")
    elif f == 'check':
        w("pragma integrity_check;")
        w("pragma foreign_key_check;")
    elif f == 'datetime':
        w("select strftime('%Y-%W', day), count(*), julianday(max(day)) - julianday(min(day)) "
          "from sale group by 1;")
        w("select datetime(unixepoch('2024-01-01') + id * 3600, 'unixepoch', 'localtime') from item where id < 300;")
    elif f == 'math':
        w("select sum(sqrt(price)), sum(ln(price + 1)), max(pow(grp, 1.5)), sum(sin(id)), "
          "sum(floor(price) % 7) from item;")
    elif f == 'text':
        w("select count(*) from item where name like '%12%' or name glob '*9?9*';")
        w("select group_concat(substr(name, 5), ','), instr(name, '7'), trim(name, 'i') from item "
          "group by grp;")
        w("select upper(name), length(replace(name, '0', '')), printf('%-10s|%8.3f', name, price) "
          "from item where id % 50 = 0;")
        w("select name collate nocase from item order by 1 desc limit 100;")
    elif f == 'blob':
        w("select hex(body), length(body), zeroblob(grp) from item where id % 40 = 0;")
        w("select count(distinct body) from item;")
    elif f == 'subquery':
        w("select id from item where price > (select avg(price) from item i2 where i2.grp = item.grp) "
          "and exists (select 1 from sale where item = item.id and qty > 7) limit 500;")
        w("select (select count(*) from sale where item in (select id from item where grp = 5));")
    elif f == 'distinct':
        w("select count(distinct grp), count(distinct day), count(distinct qty) from item, sale "
          "where item.id = sale.item;")
    elif f == 'union':
        w("select name from item where grp = 1 union select day from sale where qty = 3 "
          "except select name from item where id % 2 = 0 intersect select name from item;")
    elif f == 'delete':
        w(f"delete from sale where id % {k + 3} = 0;")
        w("delete from item where id in (select item from sale where qty = 9) and grp = 2;")
    elif f == 'vacuum':
        w("vacuum;")
    elif f == 'dbstat':
        w("select name, count(*), sum(ncell), sum(payload) from dbstat group by name;")
w("select count(*), total(price) from item;")
print("\n".join(out))
