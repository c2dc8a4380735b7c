FROM python:3.11-slim
WORKDIR /opt/odradek
COPY pyproject.toml README.md ./
COPY broker broker
COPY protocol protocol
COPY coordinator coordinator
COPY storage storage
RUN pip install --no-cache-dir .
VOLUME /data
EXPOSE 9092
ENTRYPOINT ["python", "-m", "broker"]
CMD ["--listeners", "PLAINTEXT://0.0.0.0:9092", "--advertised-listeners", "PLAINTEXT://localhost:9092", "--log-dirs", "/data"]
