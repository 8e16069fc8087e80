"""The one error type for bad input: a program prints its message on one line and exits 2
(program.py). Every trainer, reader and encoder raises it, so the message format is one."""


class InputError(Exception):
    def __init__(self, message, file=None, field=None, fix=None):
        where = ": ".join(x for x in (file, f"field '{field}'" if field else None) if x)
        text = f"{where}: {message}" if where else message
        if fix:
            text += f" Fix: {fix}"
        super().__init__(text)
        self.file, self.field, self.fix = file, field, fix
