"""A ready-made eval suite: `pytest --pyargs pytest_ora.suite --ora-bundle=PATH` scores a bundle, no test module needed."""
