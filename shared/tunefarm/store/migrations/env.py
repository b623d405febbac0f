"""Alembic's entry point: migrate the connection that `tunefarm.store.migrate` hands over."""

from alembic import context

from tunefarm.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
