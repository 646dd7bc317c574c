"""The calibration CPU's identity as `p2psim calibrate` writes it in a .meta.json (model name, then family and model
in hex, and stepping), so that p2psim can compare a timing's CPU with the profile's <cpu_reference identity>."""
import platform


def cpu_identity():
    try:
        info = {}
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    key, value = line.split(":", 1)
                    info.setdefault(key.strip(), value.strip())  # the first CPU's
        return "{} (family {:#x}, model {:#x}, stepping {})".format(
            info.get("model name", "?"), int(info.get("cpu family", 0)), int(info.get("model", 0)),
            info.get("stepping", "?"))
    except OSError:
        return platform.processor()
