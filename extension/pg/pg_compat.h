// Differences between the PostgreSQL majors gbdt supports (15, 16, 17, 18),
// in one place: the glue calls these names and never tests PG_VERSION_NUM
// itself.  Included by pg_includes.h after PostgreSQL's headers.
//
//   gbdt_namespace_aclcheck(nsp, role, mode)  privilege check on a schema:
//       pg_namespace_aclcheck up to 15; 16 replaced the per-class functions
//       with object_aclcheck(class, object, role, mode).
//   gbdt_qualified_name_list(str)  "a.b" -> List of String names, raising on
//       a syntax error: 16 gave stringToQualifiedNameList an escontext
//       argument (NULL: errors are raised as before).
//   GBDT_MY_LXID  this backend's local transaction id: 17 moved it from
//       MyProc->lxid into MyProc->vxid.lxid.
//   gbdt_foreign_server_aclcheck(srv, role, mode)  privilege check on a
//       foreign server: pg_foreign_server_aclcheck up to 15, object_aclcheck
//       from 16.
//   gbdt_create_wait_event_set(n)  a WaitEventSet for n events: 17 made its
//       owner a ResourceOwner (the current one here) instead of a memory
//       context (the current one up to 16); the caller frees it either way.
//   gbdt_expression_walker(node, fn, ctx), gbdt_query_walker(q, fn, ctx, flags)
//       the node-tree walkers: 16 made them macros that cast the walker to
//       tree_walker_callback; up to 15 they take an unprototyped function
//       pointer, which C++ reads as one taking no arguments, so it is cast
//       (through void (*)(), the type GCC lets any function pointer become).
//   GBDT_NORETURN  marks a function that never returns: 18 removed the
//       postfix pg_attribute_noreturn() for the prefix pg_noreturn; the glue
//       is C++, so the standard prefix attribute [[noreturn]] serves every
//       major.
#pragma once

#ifndef PG_VERSION_NUM
#error "pg_compat.h is included by pg_includes.h, after postgres.h"
#endif

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "gbdt supports PostgreSQL 15, 16, 17 and 18"
#endif

#if PG_VERSION_NUM >= 160000
#define gbdt_namespace_aclcheck(nsp, role, mode) \
  object_aclcheck(NamespaceRelationId, (nsp), (role), (mode))
#define gbdt_qualified_name_list(str) stringToQualifiedNameList((str), NULL)
#define gbdt_foreign_server_aclcheck(srv, role, mode) \
  object_aclcheck(ForeignServerRelationId, (srv), (role), (mode))
#else
#define gbdt_namespace_aclcheck(nsp, role, mode) pg_namespace_aclcheck((nsp), (role), (mode))
#define gbdt_qualified_name_list(str) stringToQualifiedNameList((str))
#define gbdt_foreign_server_aclcheck(srv, role, mode) \
  pg_foreign_server_aclcheck((srv), (role), (mode))
#endif

#if PG_VERSION_NUM >= 170000
#define GBDT_MY_LXID (MyProc->vxid.lxid)
#define gbdt_create_wait_event_set(n) CreateWaitEventSet(CurrentResourceOwner, (n))
#else
#define GBDT_MY_LXID (MyProc->lxid)
#define gbdt_create_wait_event_set(n) CreateWaitEventSet(CurrentMemoryContext, (n))
#endif

#if PG_VERSION_NUM >= 160000
#define gbdt_expression_walker(n, w, c) expression_tree_walker((n), (w), (c))
#define gbdt_query_walker(q, w, c, f) query_tree_walker((q), (w), (c), (f))
#else
#define gbdt_expression_walker(n, w, c) expression_tree_walker((n), (bool (*)())(void (*)())(w), (c))
#define gbdt_query_walker(q, w, c, f) query_tree_walker((q), (bool (*)())(void (*)())(w), (c), (f))
#endif

#define GBDT_NORETURN [[noreturn]]
