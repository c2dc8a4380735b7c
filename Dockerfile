# The odradek broker. Two stages: a wheel of the project and of every dependency is built in
# the first; the second installs them into a clean venv, without compilers or pip caches.
#
# Every setting comes from the environment (`ODRADEK_` + the property name in capitals, `.`
# as `_`); see docs/configuration.md. Data lives in the /data volume.
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
# strip: the dependencies' manylinux wheels ship unstripped extension modules (uvloop's is 13 MB).
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends binutils \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The dependencies' wheels first, in a layer that changes to the source do not invalidate:
# built from pyproject.toml with empty packages in place of the real ones.
COPY pyproject.toml README.md ./
RUN for p in protocol storage coordinator broker; do mkdir -p $p && touch $p/__init__.py; done \
 && python -m pip wheel --no-cache-dir --wheel-dir /wheels . \
 && rm -rf /wheels/odradek-* build *.egg-info protocol storage coordinator broker
COPY protocol protocol
COPY storage storage
COPY coordinator coordinator
COPY broker broker
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
 && python -m venv --without-pip /opt/odradek \
 && python -m pip --python /opt/odradek/bin/python install --no-cache-dir --no-index --find-links /wheels odradek \
 && find /opt/odradek -name '*.so' -exec strip --strip-unneeded {} +

FROM ${PYTHON_IMAGE}
# A fixed uid, so a bind-mounted /data can be chowned to it from the host.
RUN groupadd --system --gid 10001 odradek \
 && useradd --system --uid 10001 --gid odradek --no-create-home --home-dir /data --shell /usr/sbin/nologin odradek \
 && mkdir -p /data && chown odradek:odradek /data
COPY --from=build /opt/odradek /opt/odradek
ENV PATH=/opt/odradek/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    ODRADEK_LOG_DIRS=/data \
    ODRADEK_LISTENERS=PLAINTEXT://0.0.0.0:9092 \
    ODRADEK_ADVERTISED_LISTENERS=PLAINTEXT://localhost:9092 \
    ODRADEK_LOG_FORMAT=json
USER odradek
VOLUME /data
EXPOSE 9092
# The first listener, asked on the loopback address: a real ApiVersions round trip.
HEALTHCHECK --interval=5s --timeout=5s --start-period=10s --retries=3 \
  CMD ["python", "-m", "broker.healthcheck"]
# SIGTERM stops the broker cleanly: requests in flight answered, logs flushed, the clean
# shutdown marked (docs/operations.md); PID 1 is the broker itself, so the signal reaches it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "broker"]
