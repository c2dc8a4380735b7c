"""AlterUserScramCredentials (KIP-554): adds, replaces and removes SCRAM credentials with
Kafka's rules (`ScramControlManager.alterCredentials`): a user changed twice in one request
is refused whatever the mechanisms, every error is per user, and the accepted changes are
saved together (on PostgreSQL, one transaction on the cluster's credentials)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from broker.security.scram_credentials import (
    MAX_ITERATIONS,
    MECHANISMS,
    MIN_ITERATIONS,
    Credentials,
    ScramCredential,
)
from protocol.errors import ErrorCode
from protocol.messages.alter_user_scram_credentials_request import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from protocol.messages.alter_user_scram_credentials_response import (
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
)
from storage.errors import KafkaStorageError

API_KEY = 51

_TWICE = "A user credential cannot be altered twice in the same request"


def _check_name_and_mechanism(name: str, mechanism: int) -> tuple[int, str] | None:
    if not name:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    if mechanism not in MECHANISMS:
        return ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"
    return None


async def handle(ctx: RequestContext, request: AlterUserScramCredentialsRequest) -> AlterUserScramCredentialsResponse:
    store = ctx.sasl_servers.scram
    if not cluster_allowed(ctx, AclOperation.ALTER):
        users = dict.fromkeys([*(d.name for d in request.deletions), *(u.name for u in request.upsertions)])
        return AlterUserScramCredentialsResponse(results=[
            AlterUserScramCredentialsResult(user=u, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
            for u in users
        ])

    # Checked against the credentials as stored, in the transaction that changes them.
    def plan(current: Credentials) -> tuple[dict[tuple[str, str], ScramCredential] | None,
                                            list[AlterUserScramCredentialsResult]]:
        deletions: dict[str, ScramCredentialDeletion] = {}
        upserts: dict[str, ScramCredentialUpsertion] = {}
        errors: dict[str, tuple[int, str]] = {}
        for deletion in request.deletions:
            name = deletion.name
            if name in errors:
                continue
            if deletions.pop(name, None) is not None:
                errors[name] = (ErrorCode.DUPLICATE_RESOURCE, _TWICE)
                continue
            error = _check_name_and_mechanism(name, deletion.mechanism)
            if error is None and (name, MECHANISMS[deletion.mechanism]) not in current:
                error = (ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
            if error is not None:
                errors[name] = error
            else:
                deletions[name] = deletion
        for upsertion in request.upsertions:
            name = upsertion.name
            if name in errors:
                continue
            if deletions.pop(name, None) is not None or upserts.pop(name, None) is not None:
                errors[name] = (ErrorCode.DUPLICATE_RESOURCE, _TWICE)
                continue
            error = _check_name_and_mechanism(name, upsertion.mechanism)
            if error is None and upsertion.iterations < MIN_ITERATIONS:
                error = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
            elif error is None and upsertion.iterations > MAX_ITERATIONS:
                error = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
            if error is not None:
                errors[name] = error
            else:
                upserts[name] = upsertion
        removed = {(d.name, MECHANISMS[d.mechanism]) for d in deletions.values()}
        updated = {key: credential for key, credential in current.items() if key not in removed}
        updated.update({
            (u.name, MECHANISMS[u.mechanism]): ScramCredential.from_salted_password(
                MECHANISMS[u.mechanism], bytes(u.salt), bytes(u.salted_password), u.iterations
            )
            for u in upserts.values()
        })
        results = [AlterUserScramCredentialsResult(user=name, error_message=None) for name in [*deletions, *upserts]]
        results += [
            AlterUserScramCredentialsResult(user=name, error_code=code, error_message=message)
            for name, (code, message) in errors.items()
        ]
        return (updated if deletions or upserts else None), results

    try:
        return AlterUserScramCredentialsResponse(results=await store.update(plan))
    except (OSError, KafkaStorageError) as exc:
        # Nothing was stored: every user fails alike (retriable).
        users = dict.fromkeys([*(d.name for d in request.deletions), *(u.name for u in request.upsertions)])
        return AlterUserScramCredentialsResponse(results=[
            AlterUserScramCredentialsResult(user=u, error_code=ErrorCode.KAFKA_STORAGE_ERROR,
                                            error_message=f"Cannot store the credentials: {exc}")
            for u in users
        ])
