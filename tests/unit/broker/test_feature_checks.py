"""UpdateFeatures' checks against the registered brokers' ranges and of a feature named twice,
and a starting broker's against the finalized levels (broker/features.py), as Kafka 4.0's
FeatureControlManager, QuorumController and ClusterControlManager make them."""

from __future__ import annotations

from broker.features import SUPPORTED, FeatureUpdate, UpgradeType, check, evaluate, unsupported_finalized
from protocol.errors import ErrorCode

UPGRADE, SAFE = UpgradeType.UPGRADE, UpgradeType.SAFE_DOWNGRADE
REFUSED = ErrorCode.INVALID_UPDATE_VERSION
FINALIZED = {"metadata.version": 25, "group.version": 1}
TV = "transaction.version"


def test_a_level_outside_a_registered_brokers_range_is_refused_naming_the_first_such_broker() -> None:
    brokers = {3: {**SUPPORTED, TV: (0, 1)}, 1: dict(SUPPORTED), 2: {"metadata.version": (7, 25)}}
    assert check(FINALIZED, TV, 1, UPGRADE, 1, brokers) == (
        REFUSED, "Invalid update version 1 for feature transaction.version. Broker 2 does not support this feature.")
    del brokers[2]
    assert check(FINALIZED, TV, 2, UPGRADE, 1, brokers) == (
        REFUSED, "Invalid update version 2 for feature transaction.version. Broker 3 only supports versions 0-1")
    assert check(FINALIZED, TV, 1, UPGRADE, 1, brokers) == (ErrorCode.NONE, None)
    # The controller's own range first, then the brokers', then the downgrade checks.
    assert check(FINALIZED, TV, 3, UPGRADE, 1, brokers)[1] == (
        "Invalid update version 3 for feature transaction.version. Local controller 1 only supports versions 0-2")
    assert check(FINALIZED, TV, 2, SAFE, 1, brokers)[1] == (
        "Invalid update version 2 for feature transaction.version. Broker 3 only supports versions 0-1")
    # A request fails as a whole: nothing to apply.
    updates = [FeatureUpdate("group.version", 0, SAFE), FeatureUpdate(TV, 2, UPGRADE)]
    assert evaluate(FINALIZED, updates, 1, brokers)[::2] == (REFUSED, {})


def test_a_broker_registered_without_ranges_serves_up_to_the_finalized_levels() -> None:
    """A broker of a version that did not register its ranges: no upgrade past what is
    finalized, downgrades pass."""
    older = {4: None}
    assert check(FINALIZED, "group.version", 0, SAFE, 1, older) == (ErrorCode.NONE, None)
    assert check(FINALIZED, "metadata.version", 24, SAFE, 1, older) == (ErrorCode.NONE, None)
    assert check(FINALIZED, TV, 1, UPGRADE, 1, older) == (
        REFUSED, "Invalid update version 1 for feature transaction.version. Broker 4 does not support this feature.")
    assert check({**FINALIZED, TV: 1}, TV, 2, UPGRADE, 1, older) == (
        REFUSED, "Invalid update version 2 for feature transaction.version. Broker 4 only supports versions 0-1")
    assert check(FINALIZED, "kraft.version", 0, UPGRADE, 1, older) == (ErrorCode.NONE, None)
    # A range of one level is named as Kafka's VersionRange names it.
    assert check({"metadata.version": 7}, "metadata.version", 8, UPGRADE, 1, older) == (
        REFUSED, "Invalid update version 8 for feature metadata.version. Broker 4 only supports versions 7")


def test_a_feature_named_twice_takes_its_last_level_and_upgrade_type() -> None:
    """Kafka 4.0's QuorumController puts the updates into a map by name: no error, the last
    one of a name checked and applied."""
    twice = [FeatureUpdate(TV, 2, UPGRADE), FeatureUpdate("group.version", 0, SAFE), FeatureUpdate(TV, 1, UPGRADE)]
    assert evaluate(FINALIZED, twice, 1) == (ErrorCode.NONE, None, {TV: 1, "group.version": 0})
    # The first of the two would fail alone (a downgrade without its type); the last decides.
    at_2 = {**FINALIZED, TV: 2}
    assert evaluate(at_2, [FeatureUpdate(TV, 1, UPGRADE), FeatureUpdate(TV, 1, SAFE)], 1) == (
        ErrorCode.NONE, None, {TV: 1})
    assert evaluate(at_2, [FeatureUpdate(TV, 1, SAFE), FeatureUpdate(TV, 1, UPGRADE)], 1)[:2] == (
        REFUSED, "Invalid update version 1 for feature transaction.version. Can't downgrade the version of this "
        "feature without setting the upgrade type to either safe or unsafe downgrade.")


def test_a_broker_not_supporting_a_finalized_level_may_not_register() -> None:
    # Within every range, or not finalized (level 0 is not listed): it may.
    assert unsupported_finalized({}) is None
    assert unsupported_finalized({**FINALIZED, TV: 2, "share.version": 1}) is None
    assert unsupported_finalized({**FINALIZED, TV: 2}, {**SUPPORTED, TV: (0, 1)}) == (
        "Unable to register because the broker does not support finalized version 2 of transaction.version. "
        "The broker wants a version between 0 and 1, inclusive.")
    # Below its minimum too, and a feature it does not name is 0-0; the first by name is named.
    assert unsupported_finalized({**FINALIZED, "metadata.version": 6, "zz.version": 1}) == (
        "Unable to register because the broker does not support finalized version 6 of metadata.version. "
        "The broker wants a version between 7 and 25, inclusive.")
    assert unsupported_finalized({**FINALIZED, "zz.version": 1}) == (
        "Unable to register because the broker does not support finalized version 1 of zz.version. "
        "The broker wants a version between 0 and 0, inclusive.")
