//! Paths into a scenario document (`link[2].queue.limit`, `flow.udp.rate`): parsing them,
//! resolving them against the file, and setting a point's value.

use toml_edit::{Item, Table, TableLike, Value};

/// One step of a path: a key of a table, or an index into a list.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

/// `seed`, `link[2].queue.limit`, `flow.udp.rate`, `flow."my flow".rate`.
pub(super) fn parse_path(p: &str) -> Result<Vec<Seg>, String> {
    let bare = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut segs = vec![];
    let mut it = p.trim().chars().peekable();
    loop {
        match it.peek() {
            Some('"') => {
                it.next();
                let mut k = String::new();
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some(c) => k.push(c),
                        None => return Err(format!("`{p}`: unterminated quote")),
                    }
                }
                segs.push(Seg::Key(k));
            }
            Some(&c) if bare(c) => {
                let mut k = String::new();
                while let Some(&c) = it.peek().filter(|c| bare(**c)) {
                    k.push(c);
                    it.next();
                }
                segs.push(Seg::Key(k));
            }
            _ => return Err(format!("`{p}`: expected a key name")),
        }
        while it.peek() == Some(&'[') {
            it.next();
            let mut n = String::new();
            loop {
                match it.next() {
                    Some(']') => break,
                    Some(c) if c.is_ascii_digit() => n.push(c),
                    _ => return Err(format!("`{p}`: expected an index such as [2]")),
                }
            }
            segs.push(Seg::Index(n.parse().map_err(|_| format!("`{p}`: expected an index such as [2]"))?));
        }
        match it.next() {
            None => return Ok(segs),
            Some('.') => {}
            Some(c) => return Err(format!("`{p}`: unexpected `{c}`")),
        }
    }
}

/// A place in the document being walked, read-only.
#[derive(Clone, Copy)]
pub(super) enum Node<'a> {
    Table(&'a dyn TableLike),
    Tables(&'a toml_edit::ArrayOfTables),
    Array(&'a toml_edit::Array),
    Scalar,
}

pub(super) fn node_of_item(i: &Item) -> Node<'_> {
    match i {
        Item::Table(t) => Node::Table(t),
        Item::ArrayOfTables(a) => Node::Tables(a),
        Item::Value(v) => node_of_value(v),
        Item::None => Node::Scalar,
    }
}

pub(super) fn node_of_value(v: &Value) -> Node<'_> {
    match v {
        Value::InlineTable(t) => Node::Table(t),
        Value::Array(a) => Node::Array(a),
        _ => Node::Scalar,
    }
}

/// The entries of a list: ([[flow]] tables or array elements) as nodes.
pub(super) fn list<'a>(n: Node<'a>) -> Option<Vec<Node<'a>>> {
    match n {
        Node::Tables(a) => Some(a.iter().map(|t| Node::Table(t)).collect()),
        Node::Array(a) => Some(a.iter().map(node_of_value).collect()),
        _ => None,
    }
}

pub(super) fn entry_name(n: Node) -> Option<String> {
    match n {
        Node::Table(t) => t.get("name").and_then(|v| v.as_str()).map(str::to_string),
        _ => None,
    }
}

/// Resolves a path against the file: the steps to the value (flows by name become indices) and
/// the field as the parser names it. The last key may be missing if its table exists (it is
/// then added, e.g. `stop` to a flow); anything else missing is an error.
pub(super) fn resolve(root: &Table, segs: &[Seg]) -> Result<(Vec<Seg>, String), String> {
    let mut node = Node::Table(root);
    let mut field = String::new();
    let mut steps = vec![];
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let entries = list(node);
        match (seg, node, entries) {
            (Seg::Key(k), Node::Table(t), _) => {
                let f = if field.is_empty() { k.clone() } else { format!("{field}.{k}") };
                match t.get(k) {
                    Some(item) if last && !item.is_value() => {
                        return Err(format!("`{f}` is a table or a list of tables; sweep a value inside it"));
                    }
                    Some(item) => node = node_of_item(item),
                    None if last => node = Node::Scalar,
                    None => return Err(format!("`{f}` is not in the file")),
                }
                steps.push(seg.clone());
                field = f;
            }
            (Seg::Key(name), _, Some(entries)) => {
                let names: Vec<Option<String>> = entries.iter().map(|e| entry_name(*e)).collect();
                let matches = |n: &str| n == name || n.replace("{i}", "") == *name;
                let Some(j) = names.iter().position(|n| n.as_deref().is_some_and(matches)) else {
                    let known: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
                    let known = if known.is_empty() { "none has a name".to_string() } else { known.join(", ") };
                    return Err(format!("no entry of `{field}` is named `{name}` (names: {known})"));
                };
                if last {
                    return Err(format!("`{field}.{name}` is a whole entry; sweep one of its values"));
                }
                node = entries[j];
                steps.push(Seg::Index(j));
                field = format!("{field}[{j}]");
            }
            (Seg::Index(j), _, Some(entries)) => {
                let Some(e) = entries.get(*j) else {
                    return Err(format!(
                        "`{field}` has {} entries (indices 0 to {})",
                        entries.len(),
                        entries.len() - 1
                    ));
                };
                if last && matches!(node, Node::Tables(_)) {
                    return Err(format!("`{field}[{j}]` is a whole entry; sweep one of its values"));
                }
                node = *e;
                steps.push(seg.clone());
                field = format!("{field}[{j}]");
            }
            (Seg::Index(_), _, None) => return Err(format!("`{field}` is not a list")),
            (Seg::Key(k), _, None) => {
                return Err(format!("`{field}` is a value, not a table: it has no `{k}`"));
            }
        }
    }
    Ok((steps, field))
}

/// A place in the document being edited.
pub(super) enum Cur<'a> {
    Item(&'a mut Item),
    Value(&'a mut Value),
    Table(&'a mut Table),
}

pub(super) fn step<'a>(c: Cur<'a>, s: &Seg) -> Option<Cur<'a>> {
    match (c, s) {
        (Cur::Item(i), Seg::Key(k)) => i.as_table_like_mut()?.get_mut(k).map(Cur::Item),
        (Cur::Item(Item::ArrayOfTables(a)), Seg::Index(j)) => a.get_mut(*j).map(Cur::Table),
        (Cur::Item(i), Seg::Index(j)) => i.as_array_mut()?.get_mut(*j).map(Cur::Value),
        (Cur::Value(v), Seg::Key(k)) => v.as_inline_table_mut()?.get_mut(k).map(Cur::Value),
        (Cur::Value(v), Seg::Index(j)) => v.as_array_mut()?.get_mut(*j).map(Cur::Value),
        (Cur::Table(t), Seg::Key(k)) => t.get_mut(k).map(Cur::Item),
        (Cur::Table(_), Seg::Index(_)) => None,
    }
}

/// Replaces a value, keeping the old one's surrounding whitespace and comments.
pub(super) fn replace(old: &mut Value, new: &Value) {
    let decor = old.decor().clone();
    *old = new.clone();
    *old.decor_mut() = decor;
}

/// Sets the value at a resolved place (adding the last key if its table lacks it).
pub(super) fn set_value(root: &mut Item, steps: &[Seg], v: &Value) -> Result<(), String> {
    let fail = || "cannot set this value (the file's structure differs from the path)".to_string();
    let (last, walk) = steps.split_last().ok_or_else(fail)?;
    let mut cur = Cur::Item(root);
    for s in walk {
        cur = step(cur, s).ok_or_else(fail)?;
    }
    match last {
        Seg::Key(k) => {
            let t: &mut dyn TableLike = match cur {
                Cur::Item(i) => i.as_table_like_mut().ok_or_else(fail)?,
                Cur::Value(val) => val.as_inline_table_mut().ok_or_else(fail)?,
                Cur::Table(t) => t,
            };
            if t.contains_key(k) {
                replace(t.get_mut(k).and_then(Item::as_value_mut).ok_or_else(fail)?, v);
            } else {
                t.insert(k, Item::Value(v.clone().decorated(" ", "")));
            }
        }
        Seg::Index(j) => {
            let arr = match cur {
                Cur::Item(i) => i.as_array_mut(),
                Cur::Value(val) => val.as_array_mut(),
                Cur::Table(_) => None,
            };
            replace(arr.and_then(|a| a.get_mut(*j)).ok_or_else(fail)?, v);
        }
    }
    Ok(())
}
